#!/usr/bin/env python3
"""CPU and context switches per thread of a logbench command's JVM over a window of its run.

    threads.py FROM TO -- COMMAND [ARGS...]

Runs COMMAND (e.g. `java -jar logbench.jar generate run.yaml`), finds the JVM that runs the
command (the launcher's second JVM, started with -Dlogbench.launched), and reads
/proc/<pid>/task/*/stat (user + sys ticks) and /proc/<pid>/task/*/status (voluntary context
switches) at FROM and at TO seconds after the start. Prints, per thread name (digits folded to N),
the CPU-seconds between the two (and of them, the kernel's: system time, which a profiler that
may not sample the kernel does not see) and the voluntary context switches a second, largest
first, and their total; COMMAND's own output is discarded. Used for the steady-state figures of
docs/benchmarks.md.
"""
import collections
import glob
import os
import re
import subprocess
import sys
import time

TICKS = os.sysconf("SC_CLK_TCK")


def command_jvm():
    for d in glob.glob("/proc/[0-9]*"):
        try:
            with open(d + "/cmdline") as f:
                if "logbench.launched" in f.read():
                    return d
        except OSError:
            pass
    return None


def snapshot(proc):
    """{thread name: [CPU-s, voluntary switches, system CPU-s]} over the live threads of proc."""
    out = collections.defaultdict(lambda: [0.0, 0, 0.0])
    for t in glob.glob(proc + "/task/*"):
        try:
            with open(t + "/stat") as f:
                stat = f.read()
            with open(t + "/status") as f:
                status = f.read()
        except OSError:
            continue  # the thread ended
        name = re.sub(r"\d+", "N", stat[stat.index("(") + 1:stat.rindex(")")])
        fields = stat.rsplit(")", 1)[1].split()
        row = out[name]
        row[0] += (int(fields[11]) + int(fields[12])) / TICKS
        row[1] += int(re.search(r"\nvoluntary_ctxt_switches:\s+(\d+)", status).group(1))
        row[2] += int(fields[12]) / TICKS
    return out


def main():
    if len(sys.argv) < 5 or sys.argv[3] != "--":
        sys.exit("usage: threads.py FROM TO -- COMMAND [ARGS...]")
    start_at, end_at = float(sys.argv[1]), float(sys.argv[2])
    started = time.time()
    child = subprocess.Popen(sys.argv[4:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(max(0.0, start_at - (time.time() - started)))
    proc = command_jvm()
    if proc is None:
        child.kill()
        sys.exit(f"threads.py: no JVM running a logbench command was found {start_at:.0f} s after the start")
    before = snapshot(proc)
    time.sleep(max(0.0, end_at - (time.time() - started)))
    after = snapshot(proc)
    child.wait()
    seconds = end_at - start_at
    rows = []
    for name, (cpu, switches, system) in after.items():
        was = before.get(name, [0.0, 0, 0.0])
        rows.append((cpu - was[0], name, (switches - was[1]) / seconds, system - was[2]))
    rows.sort(reverse=True)
    print(f"{seconds:.0f} s from {start_at:.0f} s: {sum(r[0] for r in rows):.2f} CPU-s in all, "
          f"{sum(r[3] for r in rows):.2f} of them system")
    for cpu, name, per_second, system in rows:
        if cpu >= 0.05:
            print(f"  {name:<40} {cpu:6.2f} CPU-s ({system:5.2f} system)  {per_second:6.0f} voluntary switches/s")


if __name__ == "__main__":
    main()
