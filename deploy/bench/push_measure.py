#!/usr/bin/env python3
"""push.sh's measuring half: runs one `generate` and records its process's figures, or prints the
table of every run measured.

One run: starts `java -jar JAR generate RUN_FILE` with a JFR recording of jdk.ThreadStart only,
samples /proc/<pid>/stat (utime + stime) and /proc/<pid>/status (Threads) every 100 ms until the
process ends, and writes one JSON object: CPU seconds (the last /proc sample, and the exact
figure from wait4 as a cross-check), the run's lines and requests (its summary.csv), the threads
started after warm-up (from the first Flink source thread's start + 5 s to the schedule's end),
and the most threads seen at once; the CPU a minute while the schedule runs (the slope of the
samples from 20 s after the run's start to 5 s before its end, so JVM start, MiniCluster start and
shutdown are left out: for the idle run, what an idle embedded run costs a minute); and the heap
left after each GC (JFR jdk.GCHeapSummary), at the start and the end of the schedule, to see
whether it grows.
"""
import argparse
import csv
import glob
import json
import os
import subprocess
import sys
import time

from measure import proc_cpu, thread_cpu as proc_thread_cpu  # one home for /proc reading

WARMUP_S = 5.0


def proc_threads(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    return 0


def thread_starts(jfr_file):
    out = subprocess.run(["jfr", "print", "--json", "--events", "jdk.ThreadStart", jfr_file],
                         capture_output=True, text=True, check=True).stdout
    events = json.loads(out)["recording"]["events"]
    starts = []
    for e in events:
        v = e["values"]
        name = (v.get("thread") or {}).get("javaName") or ""
        starts.append((v["startTime"], name))
    return starts


def parse_time(s):
    # JFR JSON times look like 2026-11-30T16:20:01.123456789Z; seconds since the epoch
    from datetime import datetime, timezone
    base, frac = (s.rstrip("Z").split(".") + ["0"])[:2]
    t = datetime.strptime(base, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc).timestamp()
    return t + float("0." + frac)


def gc_heap_after(jfr_file):
    """(epoch seconds, heap used bytes) after each GC."""
    out = subprocess.run(["jfr", "print", "--json", "--events", "jdk.GCHeapSummary", jfr_file],
                         capture_output=True, text=True, check=True).stdout
    return sorted((parse_time(e["values"]["startTime"]), e["values"]["heapUsed"])
                  for e in json.loads(out)["recording"]["events"] if e["values"].get("when") == "After GC")


def slope_per_min(samples, t0, t1):
    """Least-squares CPU-seconds a minute of the (time, cpu) samples within [t0, t1]."""
    pts = [(t, c) for t, c in samples if t0 <= t <= t1]
    if len(pts) < 3:
        return None
    mt = sum(t for t, _ in pts) / len(pts)
    mc = sum(c for _, c in pts) / len(pts)
    den = sum((t - mt) ** 2 for t, _ in pts)
    return None if den == 0 else 60 * sum((t - mt) * (c - mc) for t, c in pts) / den


def run_one(a):
    os.makedirs(a.run_dir, exist_ok=True)
    jfr_file = os.path.join(a.run_dir, "threads.jfr")
    cmd = ["java"] + a.java_opts.split() + [
        f"-XX:StartFlightRecording:settings=none,+jdk.ThreadStart#enabled=true,+jdk.GCHeapSummary#enabled=true,"
        f"filename={jfr_file}",
        "-Xlog:jfr+startup=warning", "-jar", a.jar, "generate", a.run_file, "--run-dir", a.run_dir]
    log = open(os.path.join(a.run_dir, "generate.log"), "w")
    started = time.time()
    p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    cpu, peak, samples, per_thread, loads = 0.0, 0, [], [], []
    while True:
        try:
            cpu = proc_cpu(p.pid)
            now = time.time()
            samples.append((now, cpu))
            peak = max(peak, proc_threads(p.pid))
            if not per_thread or now - per_thread[-1][0] >= 1.0:
                per_thread.append((now, proc_thread_cpu(p.pid)))
                with open("/proc/loadavg") as f:
                    loads.append(float(f.read().split()[0]))
        except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
            pass
        _, status, rusage = os.wait4(p.pid, os.WNOHANG)
        if _ == p.pid:
            break
        time.sleep(0.1)
    ended = time.time()
    exact = rusage.ru_utime + rusage.ru_stime
    code = os.waitstatus_to_exitcode(status)
    with open(os.path.join(a.run_dir, "summary.csv")) as f:
        row = next(csv.DictReader(f))
    lines, requests, acked = int(row["lines"]), int(row["requests"]), int(row["acked"])
    starts = sorted((parse_time(t), n) for t, n in thread_starts(jfr_file))
    # the seconds in which the discard server got this run's requests
    seconds = []
    with open(a.rates) as f:
        for line in f:
            sec, n = line.split()
            if started <= int(sec) + 1 and int(sec) <= ended:
                seconds.append((int(sec), int(n)))
    run_start_ms = None
    try:
        with open(os.path.join(a.run_dir, "run.json")) as f:
            run_start_ms = json.load(f).get("runStartMillis")
    except (FileNotFoundError, ValueError):
        pass
    first, last = (seconds[0][0], seconds[-1][0]) if seconds else (started, ended)
    # steady: after warm-up, up to the start of the last second. Warm-up counts from the later of
    # the first request (a preflight count may come before the job) and the schedule's start, so
    # the job's own start-up threads (one OutputFlusher per task, timers, ...) stay outside.
    sched0 = started if run_start_ms is None else run_start_ms / 1000
    t0, t1 = max(first, sched0) + WARMUP_S, last
    steady = [n for t, n in starts if t0 <= t < t1]
    steady_requests = sum(n for sec, n in seconds if t0 <= sec < t1)
    window_s = max(0.0, t1 - t0)
    end_lag = None if run_start_ms is None else (last + 1) - (run_start_ms / 1000 + a.duration)
    cpu_min = slope_per_min(samples, sched0 + 20, sched0 + a.duration - 5)
    # CPU a minute of each kind of thread over the same span (threads that ended in between count
    # only up to their end: a small under-count, not a mix-up)
    threads_min = {}
    span = [(t, c) for t, c in per_thread if sched0 + 20 <= t <= sched0 + a.duration - 5]
    if len(span) >= 2:
        (ta, ca), (tb, cb) = span[0], span[-1]
        for name, v in cb.items():
            d = (v - ca.get(name, 0.0)) * 60 / (tb - ta)
            if d >= 0.05:
                threads_min[name] = round(d, 2)
        threads_min = dict(sorted(threads_min.items(), key=lambda kv: -kv[1]))
    heap = [(t, b) for t, b in gc_heap_after(jfr_file) if sched0 <= t <= sched0 + a.duration]
    third = a.duration / 3
    heap_first = [b for t, b in heap if t < sched0 + third]
    heap_last = [b for t, b in heap if t >= sched0 + 2 * third]
    result = {
        "name": a.name, "exit": code, "cpu_proc_s": round(cpu, 2), "cpu_wait4_s": round(exact, 2),
        "lines": lines, "acked": acked, "requests": requests, "max_ms": float(row["max_ms"]),
        "p99_ms": float(row["p99_ms"]), "failures": row["failures"], "duration_s": a.duration,
        "threads_started_total": len(starts), "threads_started_steady": len(steady),
        "steady_window_s": round(window_s, 1), "steady_requests": steady_requests,
        "request_seconds": len(seconds), "end_lag_s": end_lag, "steady_thread_names": sorted(set(n.rstrip("0123456789") for n in steady))[:10],
        "peak_threads": peak,
        "cpu_s_per_min_scheduled": None if cpu_min is None else round(cpu_min, 2),
        "threads_cpu_s_per_min": threads_min,
        "load_avg_min_max": [min(loads), max(loads)] if loads else None,
        "gcs_in_schedule": len(heap),
        "heap_after_gc_mb_first_third": round(max(heap_first) / 2**20, 1) if heap_first else None,
        "heap_after_gc_mb_last_third": round(max(heap_last) / 2**20, 1) if heap_last else None,
    }
    with open(a.out, "w") as f:
        json.dump(result, f)
    print(json.dumps(result), flush=True)


def table(a):
    idle = json.load(open(a.idle))
    print(f"\nidle run: {idle['cpu_proc_s']:.1f} CPU-s over {idle['duration_s']} s of schedule "
          f"({idle['cpu_proc_s'] / idle['duration_s'] * 60:.1f} CPU-s a minute, JVM start and stop included), "
          f"{idle['lines']} lines, {idle['threads_started_total']} threads started; "
          f"{idle.get('cpu_s_per_min_scheduled')} CPU-s a minute while the schedule ran (start and stop left out)")
    print("| run | lines | requests | CPU-s | lines/CPU-s total | lines/CPU-s marginal | cores over idle "
          "| threads started/request (steady) | peak threads | target lines/s | steady lines/s | last request vs schedule end "
          "| heap after GC, MB (first → last third) | lines/CPU-s over idle, steady slope | cores over idle, steady | failures |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|")
    for path in sorted(glob.glob(os.path.join(a.table, "*.json"))):
        r = json.load(open(path))
        if r["name"] == "idle":
            continue
        cpu, lines = r["cpu_proc_s"], r["lines"]
        marginal_cpu = cpu - idle["cpu_proc_s"]
        marginal = (lines - idle["lines"]) / marginal_cpu if marginal_cpu > 0 else float("inf")
        steady_requests = r["steady_requests"]
        tpr = r["threads_started_steady"] / steady_requests if steady_requests else float("nan")
        target = lines / r["duration_s"]
        lines_a_request = lines / r["requests"] if r["requests"] else 0
        steady_rate = steady_requests * lines_a_request / r["steady_window_s"] if r["steady_window_s"] > 0 else 0
        lag = "?" if r["end_lag_s"] is None else f"{r['end_lag_s']:+.0f} s"
        # steady: the CPU slope while the schedule ran, over the idle run's slope, against the
        # target rate (only meaningful when the rate was held: see the last-request column)
        slope, idle_slope = r.get("cpu_s_per_min_scheduled"), idle.get("cpu_s_per_min_scheduled")
        if slope is not None and idle_slope is not None and slope > idle_slope:
            steady_marginal = f"{target * 60 / (slope - idle_slope):,.0f}"
            steady_cores = f"{(slope - idle_slope) / 60:.3f}"
        else:
            steady_marginal = steady_cores = "?"
        print(f"| {r['name']} | {lines:,} | {r['requests']:,} | {cpu:.1f} | {lines / cpu:,.0f} | {marginal:,.0f} "
              f"| {marginal_cpu / r['duration_s']:.3f} | {tpr:.4f} ({r['threads_started_steady']} in "
              f"{steady_requests:,}) | {r['peak_threads']} | {target:,.0f} | {steady_rate:,.0f} | {lag} "
              f"| {r.get('heap_after_gc_mb_first_third')} → {r.get('heap_after_gc_mb_last_third')} "
              f"| {steady_marginal} | {steady_cores} | {r['failures'] or '-'} |")
    print("\nsteady: from 5 s after the first request to the last second with requests (the discard server's "
          "per-second counts); steady lines/s counts the requests the server got then. last request vs schedule end: "
          "when the last request came relative to the schedule's end (about 0: the target rate was held to the end). "
          "cores over idle = (CPU-s - idle CPU-s) / duration. steady slope: the CPU a minute from 20 s after the "
          "schedule's start to 5 s before its end, less the idle run's over the same span, against the target rate.")
    for path in sorted(glob.glob(os.path.join(a.table, "*.json"))):
        r = json.load(open(path))
        top = list((r.get("threads_cpu_s_per_min") or {}).items())[:8]
        if top:
            print(f"{r['name']}: CPU-s a minute by thread, steady: " + ", ".join(f"{n} {v}" for n, v in top))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--name")
    p.add_argument("--jar")
    p.add_argument("--run-file")
    p.add_argument("--run-dir")
    p.add_argument("--duration", type=float)
    p.add_argument("--java-opts", default="")
    p.add_argument("--out")
    p.add_argument("--table")
    p.add_argument("--idle")
    p.add_argument("--rates")
    a = p.parse_args()
    if a.table:
        table(a)
    else:
        run_one(a)


if __name__ == "__main__":
    sys.exit(main())
