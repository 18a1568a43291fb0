#!/usr/bin/env python3
"""What one visibility poll's query costs a VictoriaLogs server, with and without the plain time range
that spans its samples (the form VictoriaLogsProbe sends since the twenty-third round, and the one
before it).

Usage: vl_probe_query.py URL SERVER_PID FILTER [N]
  URL         the server, e.g. http://127.0.0.1:9428 (loopback)
  SERVER_PID  its process, whose CPU (user + sys, /proc) is read before and after each form's N queries
  FILTER      the probe's run filter, e.g. '{namespace="loadtest"} logbench_run:="t-20261207-132753-7f98"'
  N [300]     queries per form; the forms alternate twice

Two samples of 5 ms each, 1 s and 0.5 s before the last line FILTER matches, are counted as the probe
counts them. Prints each form's answer, the server's CPU per query and the wall time per query.
"""
import os
import sys
import time
import urllib.parse
import urllib.request
from datetime import datetime, timedelta, timezone


def main():
    url, pid, flt = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 300

    def ask(q):
        body = urllib.parse.urlencode({"query": q}).encode()
        return urllib.request.urlopen(url + "/select/logsql/query", body).read().decode().strip()

    def cpu():
        f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")

    import json
    last = json.loads(ask(flt + " | stats max(_time) t"))["t"]
    end = datetime.fromisoformat(last.rstrip("Z")[:26]).replace(tzinfo=timezone.utc)

    def rng(back_ms):
        a = end - timedelta(milliseconds=back_ms)
        b = a + timedelta(milliseconds=5)
        return a.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), b.strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    r1, r2 = rng(1000), rng(500)
    t = lambda r: "_time:[%s, %s]" % r
    stats = "count() if (%s) s0, count() if (%s) s1" % (t(r1), t(r2))
    forms = {
        "or of ranges alone": "%s (%s or %s) | stats %s" % (flt, t(r1), t(r2), stats),
        "with the spanning range": "%s _time:[%s, %s] (%s or %s) | stats %s" % (flt, r1[0], r2[1], t(r1), t(r2), stats),
    }
    for _ in range(2):
        for name, q in forms.items():
            answer = ask(q)
            c0, w0 = cpu(), time.time()
            for _ in range(n):
                ask(q)
            c1, w1 = cpu(), time.time()
            print("%-24s %s: server %.2f ms CPU a query, %.2f ms wall a query (%d queries)"
                  % (name, answer, (c1 - c0) * 1000 / n, (w1 - w0) * 1000 / n, n))


if __name__ == "__main__":
    main()
