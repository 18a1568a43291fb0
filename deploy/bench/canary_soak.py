#!/usr/bin/env python3
"""The sampler and the report of canary-soak.sh (run by it, not on its own).

    canary_soak.py sample --pid PID --out DIR --minutes M [--every S] [--metrics URL]
    canary_soak.py report CSV [--skip MINUTES]

sample: every S seconds (60) until M minutes have passed or PID is gone, appends a row to
DIR/soak.csv: the elapsed seconds, the 1-minute load average, the CPU-seconds (utime + stime) and
RSS of PID and its descendants (the launcher and the command's JVM, with measure.py's tree), the
command's heap after GC (from its -Xlog:gc file DIR/gc-<pid>.log: the lowest and the newest heap
after a pause since the previous row, and the heap committed), the bytes of DIR/run/checkpoints
and of its newest chk-N, the run directory's bytes and files, VictoriaLogs' data bytes
(DIR/server/data), the final windows by verdict and spot checks by status in the verdict files, and
(with --metrics) canaryStoredWindows, canaryOpenWindows and canaryCountErrors from the canary's
Prometheus endpoint.

report: a table per 10 minutes (CPU-seconds a minute over the 10 minutes, the first with the JVMs'
start; the highest RSS; the lowest and highest heap after GC, from the third minute on; the rest
at the 10 minutes' end) and the first 10 minutes against the last 10; with --skip, the
CPU-seconds per minute after the first MINUTES too.
"""
import argparse
import csv
import glob
import json
import os
import re
import sys
import time
import subprocess
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure  # noqa: E402  (tree, tree_cpu, load1)

FIELDS = ["elapsed_s", "load1", "cpu_s", "rss_mb", "heap_after_gc_min_mb", "heap_after_gc_last_mb",
          "heap_committed_mb", "gc_pauses", "old_used_mb", "heap_used_mb", "ckpt_bytes", "newest_ckpt_bytes", "run_bytes", "run_files",
          "vl_bytes", "windows_ok", "windows_other", "windows_by_status", "spots_by_status",
          "stored_windows", "open_windows", "count_errors"]
PAUSE = re.compile(r"GC\((\d+)\) Pause .* (\d+)M->(\d+)M\((\d+)M\)")


def du(path):
    total, files = 0, 0
    for d, _, names in os.walk(path):
        for n in names:
            try:
                total += os.lstat(os.path.join(d, n)).st_size
                files += 1
            except FileNotFoundError:
                pass
    return total, files


def rss_mb(pids):
    kb = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        kb += int(line.split()[1])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return round(kb / 1024, 1)


class GcLog:
    """Reads the command JVM's GC log on from where it left off."""

    def __init__(self, out):
        self.out, self.path, self.pos, self.pauses, self.last, self.committed = out, None, 0, 0, "", ""

    def read(self, pids):
        if self.path is None:
            for p in pids:
                f = os.path.join(self.out, f"gc-{p}.log")
                if os.path.exists(f) and p != pids[0]:
                    self.path = f
        after = []
        if self.path:
            with open(self.path) as f:
                f.seek(self.pos)
                chunk = f.read()
                # keep a partial last line for the next read
                cut = chunk.rfind("\n") + 1
                self.pos += len(chunk[:cut].encode())
                for m in PAUSE.finditer(chunk[:cut]):
                    after.append(int(m.group(3)))
                    self.committed = m.group(4)
                    self.pauses = int(m.group(1)) + 1
        if after:
            self.last = after[-1]
        return (min(after) if after else ""), self.last, self.committed, self.pauses


def verdicts(run):
    windows, spots = {}, {}
    for f in glob.glob(os.path.join(run, "verdicts", "*", "*.jsonl")):
        with open(f) as fh:
            for line in fh:
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                into = spots if r.get("check") == "spot" else windows
                into[r.get("status")] = into.get(r.get("status"), 0) + 1
    return windows, spots


def metrics(url):
    out = {"canaryStoredWindows": "", "canaryOpenWindows": "", "canaryCountErrors": ""}
    if not url:
        return out
    try:
        body = urllib.request.urlopen(url, timeout=5).read().decode()
    except OSError:
        return out
    for line in body.splitlines():
        for k in out:
            if not line.startswith("#") and f"_{k}" in line.split("{")[0]:
                out[k] = (out[k] or 0) + float(line.rsplit(" ", 1)[1])
    return out


def jstat(pid):
    """(old generation used, heap used) in MB from jstat -gc: read from the JVM's perf data, no GC
    forced, no safepoint."""
    try:
        head, vals = subprocess.run(["jstat", "-gc", str(pid)], capture_output=True, text=True,
                                    timeout=30).stdout.split("\n")[:2]
        g = dict(zip(head.split(), (float(v) for v in vals.split())))
        return round(g["OU"] / 1024, 1), round((g["S0U"] + g["S1U"] + g["EU"] + g["OU"]) / 1024, 1)
    except (OSError, ValueError, KeyError, subprocess.SubprocessError):
        return "", ""


def newest_chk(ckpts):
    chks = glob.glob(os.path.join(ckpts, "*", "chk-*"))
    if not chks:
        return 0
    try:
        newest = max(chks, key=lambda c: int(c.rsplit("-", 1)[1]))
    except ValueError:
        return 0
    return du(newest)[0]


def sample(a):
    path = os.path.join(a.out, "soak.csv")
    new = not os.path.exists(path)
    gc = GcLog(a.out)
    started = time.time()
    run = os.path.join(a.out, "run")
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        if new:
            w.writeheader()
        n = 0
        while True:
            n += 1
            time.sleep(max(0.0, started + n * a.every - time.time()))
            if not os.path.exists(f"/proc/{a.pid}"):
                print(f"canary_soak.py: the canary (pid {a.pid}) is gone after {time.time() - started:.0f} s",
                      file=sys.stderr)
                return 1
            pids = measure.tree(a.pid)
            lo, last, committed, pauses = gc.read(pids)
            old, used = jstat(pids[-1]) if len(pids) > 1 else ("", "")
            ckpt_bytes, _ = du(os.path.join(run, "checkpoints"))
            run_bytes, run_files = du(run)
            windows, spots = verdicts(run)
            m = metrics(a.metrics)
            w.writerow({
                "elapsed_s": round(time.time() - started), "load1": measure.load1(),
                "cpu_s": round(measure.tree_cpu(a.pid), 2), "rss_mb": rss_mb(pids),
                "heap_after_gc_min_mb": lo, "heap_after_gc_last_mb": last, "heap_committed_mb": committed,
                "gc_pauses": pauses, "old_used_mb": old, "heap_used_mb": used, "ckpt_bytes": ckpt_bytes,
                "newest_ckpt_bytes": newest_chk(os.path.join(run, "checkpoints")),
                "run_bytes": run_bytes, "run_files": run_files,
                "vl_bytes": du(os.path.join(a.out, "server", "data"))[0],
                "windows_ok": windows.get("OK", 0),
                "windows_other": sum(v for k, v in windows.items() if k != "OK"),
                "windows_by_status": json.dumps(windows, sort_keys=True),
                "spots_by_status": json.dumps(spots, sort_keys=True),
                "stored_windows": m["canaryStoredWindows"], "open_windows": m["canaryOpenWindows"],
                "count_errors": m["canaryCountErrors"],
            })
            f.flush()
            if time.time() - started >= a.minutes * 60 - 1:
                return 0


def num(v):
    return float(v) if v not in ("", None) else None


def report(a):
    rows = list(csv.DictReader(open(a.csv)))
    if not rows:
        print("no rows")
        return 1
    for r in rows:
        for k in FIELDS[:17]:
            r[k] = num(r[k])
    buckets = {}
    for r in rows:
        # by the minute the row was due (a row may come a second or two late)
        buckets.setdefault((round(r["elapsed_s"] / 60) - 1) // 10, []).append(r)
    print(f"{'minutes':>8} {'CPU-s/min':>9} {'load1':>5} {'RSS MB':>7} {'heap after GC MB (min/max)':>26} {'old gen MB':>10} "
          f"{'ckpt KB':>8} {'newest chk KB':>13} {'run dir KB':>10} {'files':>5} {'VL MB':>6} {'OK':>4} {'other':>5}")
    prev = {"elapsed_s": 0.0, "cpu_s": 0.0}
    summary = []
    for b in sorted(buckets):
        rs = buckets[b]
        end = rs[-1]
        minutes = (end["elapsed_s"] - prev["elapsed_s"]) / 60
        cpu_min = (end["cpu_s"] - prev["cpu_s"]) / minutes
        # the pauses of the first 2 minutes are the JVM's and Flink's start, not the steady heap
        heaps = [r["heap_after_gc_min_mb"] for r in rs
                 if r["heap_after_gc_min_mb"] is not None and r["elapsed_s"] > 120]
        loads = [r["load1"] for r in rs]
        line = {
            "from": round(prev["elapsed_s"] / 60), "to": round(end["elapsed_s"] / 60), "cpu_min": cpu_min,
            "load": sum(loads) / len(loads), "rss": max(r["rss_mb"] for r in rs),
            "old": end["old_used_mb"],
            "heap_min": min(heaps) if heaps else None, "heap_max": max(heaps) if heaps else None,
            "ckpt": end["ckpt_bytes"] / 1024, "chk": end["newest_ckpt_bytes"] / 1024,
            "run": end["run_bytes"] / 1024, "files": end["run_files"], "vl": end["vl_bytes"] / 2**20,
            "ok": end["windows_ok"], "other": end["windows_other"],
        }
        summary.append(line)
        heap = f"{line['heap_min']:.0f}/{line['heap_max']:.0f}" if heaps else "-"
        print(f"{line['from']:>3}-{line['to']:<4} {cpu_min:>9.2f} {line['load']:>5.1f} {line['rss']:>7.0f} {heap:>26} {(line['old'] if line['old'] is not None else float('nan')):>10.0f} "
              f"{line['ckpt']:>8.0f} {line['chk']:>13.0f} {line['run']:>10.0f} {line['files']:>5.0f} "
              f"{line['vl']:>6.0f} {line['ok']:>4.0f} {line['other']:>5.0f}")
        prev = end
    if len(summary) >= 2:
        f, l = summary[0], summary[-1]
        print(f"first 10 min -> last 10 min: CPU-s/min {f['cpu_min']:.2f} -> {l['cpu_min']:.2f}; "
              f"RSS {f['rss']:.0f} -> {l['rss']:.0f} MB; heap after GC (from minute 3) "
              f"{f['heap_min']}-{f['heap_max']} -> {l['heap_min']}-{l['heap_max']} MB; old gen {f['old']} -> {l['old']} MB; checkpoints {f['ckpt']:.0f} -> {l['ckpt']:.0f} KB "
              f"(newest chk {f['chk']:.0f} -> {l['chk']:.0f} KB); run dir {f['run']:.0f} -> {l['run']:.0f} KB, "
              f"{f['files']:.0f} -> {l['files']:.0f} files")
    if a.skip:
        after = [r for r in rows if r["elapsed_s"] >= a.skip * 60 - 1]
        if len(after) >= 2:
            s, e = after[0], after[-1]
            print(f"after the first {a.skip} min: {(e['cpu_s'] - s['cpu_s']) / ((e['elapsed_s'] - s['elapsed_s']) / 60):.3f}"
                  f" CPU-s per minute over {(e['elapsed_s'] - s['elapsed_s']) / 60:.0f} min "
                  f"(load1 {min(r['load1'] for r in after):.1f}-{max(r['load1'] for r in after):.1f})")
    last = rows[-1]
    print(f"windows by verdict: {last['windows_by_status']}; spot checks: {last['spots_by_status']}; "
          f"stored windows {last['stored_windows']}, open {last['open_windows']}, count errors {last['count_errors']}")
    return 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="mode", required=True)
    s = sub.add_parser("sample")
    s.add_argument("--pid", type=int, required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--minutes", type=float, required=True)
    s.add_argument("--every", type=float, default=60)
    s.add_argument("--metrics", default="")
    r = sub.add_parser("report")
    r.add_argument("csv")
    r.add_argument("--skip", type=float, default=2)
    a = p.parse_args()
    return sample(a) if a.mode == "sample" else report(a)


if __name__ == "__main__":
    sys.exit(main())
