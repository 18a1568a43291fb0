#!/usr/bin/env python3
"""Runs one command and records what its process cost: the CPU of the whole process and its
descendants (user + sys, from /proc/<pid>/stat while it runs, and from wait4 when it ends, which
counts the descendants it waited for; the two agree within a tick), the
CPU of each of its threads by name (digits folded) in the last snapshot before it ended (threads
that ended earlier are not in it), its wall time, and the
machine's load average while it ran (1-minute figure, sampled every second), and its minor page
faults (from wait4, so the descendants it waited for count too).

    measure.py --out run.json [--label NAME] -- COMMAND [ARGS...]

Writes one JSON object to --out and prints it; exits with the command's exit code. Used by the
bench scripts (vs-k6.sh, visibility.sh, startup.sh); a user can run it around anything.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import time

TICKS = os.sysconf("SC_CLK_TCK")


def proc_cpu(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def tree(pid):
    """pid and its live descendants (java -jar logbench.jar runs the command in a second JVM)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        for f in glob.glob(f"/proc/{p}/task/*/children"):
            try:
                with open(f) as c:
                    todo.extend(int(x) for x in c.read().split())
            except (FileNotFoundError, ProcessLookupError, ValueError):
                pass
    return out


def tree_cpu(pid):
    total = 0.0
    for p in tree(pid):
        try:
            total += proc_cpu(p)
        except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
            pass
    return total


def thread_cpu(pid, descendants=False):
    """{thread name with digits folded: CPU seconds} over the live threads of the process (and of
    its descendants with descendants=True)."""
    out = {}
    stats = []
    for p in tree(pid) if descendants else [pid]:
        stats.extend(glob.glob(f"/proc/{p}/task/*/stat"))
    for stat in stats:
        try:
            with open(stat) as f:
                raw = f.read()
        except (FileNotFoundError, ProcessLookupError):
            continue
        name = raw[raw.index("(") + 1:raw.rindex(")")]
        name = "".join("N" if c.isdigit() else c for c in name)
        while "NN" in name:
            name = name.replace("NN", "N")
        fields = raw.rsplit(")", 1)[1].split()
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / TICKS
    return out


def load1():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--label", default="")
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd:
        p.error("no command given after --")
    loads = [load1()]
    started = time.time()
    child = subprocess.Popen(cmd)
    cpu, threads, last_load = 0.0, {}, started
    while True:
        try:
            cpu = max(cpu, tree_cpu(child.pid))
            now_threads = thread_cpu(child.pid, descendants=True)
            # an exiting process's threads vanish one by one: keep the fullest snapshot
            if sum(now_threads.values()) >= sum(threads.values()):
                threads = now_threads
        except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
            pass
        now = time.time()
        if now - last_load >= 1.0:
            loads.append(load1())
            last_load = now
        pid, status, rusage = os.wait4(child.pid, os.WNOHANG)
        if pid == child.pid:
            break
        time.sleep(0.2)
    wall = time.time() - started
    code = os.waitstatus_to_exitcode(status)
    top = dict(sorted(((n, round(v, 2)) for n, v in threads.items() if v >= 0.05), key=lambda kv: -kv[1]))
    result = {
        "label": a.label, "exit": code, "wall_s": round(wall, 2),
        "cpu_s": round(rusage.ru_utime + rusage.ru_stime, 2),
        "cpu_user_s": round(rusage.ru_utime, 2), "cpu_sys_s": round(rusage.ru_stime, 2),
        "minor_faults": rusage.ru_minflt, "cpu_proc_s": round(cpu, 2), "load_avg_min_max": [min(loads), max(loads)],
        "threads_cpu_s": top,
    }
    with open(a.out, "w") as f:
        json.dump(result, f)
    print(json.dumps(result), flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
