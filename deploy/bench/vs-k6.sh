#!/usr/bin/env bash
# logbench beside seed 000's k6 script, on the same work, measured the same way: for each rate of
# RATES and each backend of TARGETS (a real VictoriaLogs and a real Loki, started here on
# loopback from LOGBENCH_VICTORIALOGS_BIN and LOGBENCH_LOKI_BIN), k6 runs seed 000's script
# (deploy/bench/seed000-k6.js, from LOGBENCH_K6_BIN) at that rate for DURATION seconds, then
# `java -jar logbench.jar generate` sends the same lines (seed 000's app JSON, 20 streams, 100
# lines a request, the same thresholds) at the same rate for as long, to the same server, one after
# the other. Each is a whole process as a user runs it (JVM start, class-data archive and end of
# run included for logbench; its run file keeps the default settings, visibility sampling on).
#
# Printed per run: CPU-s of the whole process (user + sys, deploy/bench/measure.py), lines sent,
# lines per CPU-second, achieved rate (lines over the seconds the requests took: k6's http_reqs
# over its test time, logbench's acknowledged lines over first send to last answer), the request's
# p95 from its send to its answer (k6's http_req_duration, logbench's request_p95_ms), logbench's
# p95 from each batch's scheduled time to its answer (which also counts any lateness; k6 has no such
# figure), failed lines, the load average while it ran; then the ratio per rate and
# backend (with ROUNDS > 1: each round's, and their median). Every run's files are in OUT.
#
# Environment (defaults in brackets):
#   RATES ["20000 100000"]  lines/s      DURATION [60] s      TARGETS ["vl loki"]
#   ROUNDS [1]: pairs of runs (k6, then logbench) per rate and backend, one after the other; the
#     CPU a run takes on a shared virtual machine moves by a fifth from one minute to the next, so
#     only pairs taken side by side compare, and their median ratio says more than one pair
#   JAR [jobs/target/logbench.jar]  JAVA_OPTS [-Xmx1g]  OUT [target/vs-k6]
#   WARMUP [10] s of logbench at 20k lines/s into each fresh server first, not measured (a fresh
#     VictoriaLogs or Loki answers its first minute slower), and one unmeasured logbench run of
#     generate to make its class-data archive when the jar has none yet
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=servers.sh
source "$root/deploy/bench/servers.sh"
need_bin LOGBENCH_K6_BIN "a k6 binary (seed 000's load generator)"
need_bin LOGBENCH_VICTORIALOGS_BIN "a VictoriaLogs single-node binary"
need_bin LOGBENCH_LOKI_BIN "a Grafana Loki binary (3.x, -target=all)"
rates="${RATES:-20000 100000}"
duration="${DURATION:-60}"
targets="${TARGETS:-vl loki}"
jar="${JAR:-$root/jobs/target/logbench.jar}"
java_opts="${JAVA_OPTS:--Xmx1g}"
out="${OUT:-$root/target/vs-k6}"
warmup="${WARMUP:-10}"
rounds="${ROUNDS:-1}"
[[ -f "$jar" ]] || { echo "vs-k6.sh: the jar $jar is missing; build first: mvn -B -ntp -q -DskipTests package" >&2; exit 2; }
mkdir -p "$out"

trap stop_servers EXIT
start_victorialogs "$out/victorialogs"
start_loki "$out/loki"
echo "vs-k6.sh: VictoriaLogs at $VL_URL, Loki at $LOKI_URL; $duration s a run; rates $rates; $(uptime)"

run_file() { # name target rate seconds -> path
  local f="$out/$1.yaml" block
  case "$2" in
    vl) block="  - kind: victorialogs
    url: $VL_URL" ;;
    loki) block="  - kind: loki
    url: $LOKI_URL
    format: json" ;;
  esac
  # seed 000's step at one constant rate; k6's thresholds; everything else logbench's defaults
  app_run_file "$f" "$1" "$3" "$4" 100 "" "$block
    delivery: load-test
    thresholds: {failed_rate: 0.01, p95: 2s, delay: 30s}"
  echo "$f"
}

logbench() { # name target rate seconds
  rm -rf "$out/runs/$1"
  # shellcheck disable=SC2086
  python3 "$root/deploy/bench/measure.py" --label "$1" --out "$out/$1.json" -- \
    java $java_opts -jar "$jar" generate "$(run_file "$1" "$2" "$3" "$4")" --run-dir "$out/runs/$1" --quiet \
    > "$out/$1.log" 2>&1 || true
}

k6() { # name target rate seconds
  python3 "$root/deploy/bench/measure.py" --label "$1" --out "$out/$1.json" -- \
    env TARGET="$2" STEPS="$(( $3 / 100 ))" RAMP=0s HOLD="${4}s" LOKI_URL="$LOKI_URL" VL_URL="$VL_URL" \
    "$LOGBENCH_K6_BIN" run --quiet --no-color --summary-export "$out/$1.summary.json" \
    "$root/deploy/bench/seed000-k6.js" > "$out/$1.log" 2>&1 || true
}

for t in $targets; do
  logbench "warmup-$t" "$t" 20000 "$warmup"
done

for round in $(seq "$rounds"); do
  suffix=$([[ "$rounds" == 1 ]] && echo "" || echo "-r$round")
  for rate in $rates; do
    for t in $targets; do
      k6 "k6-$t-$rate$suffix" "$t" "$rate" "$duration"
      logbench "logbench-$t-$rate$suffix" "$t" "$rate" "$duration"
    done
  done
done

python3 - "$out" "$duration" "$rates" "$targets" "$rounds" <<'EOF'
import csv, json, os, statistics, sys
out, duration, rates, targets = sys.argv[1], float(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split()
rounds = int(sys.argv[5])
suffixes = [""] if rounds == 1 else [f"-r{r}" for r in range(1, rounds + 1)]

def k6(name):
    m = json.load(open(os.path.join(out, name + ".json")))
    s = json.load(open(os.path.join(out, name + ".summary.json")))["metrics"]
    reqs = s["http_reqs"]["count"]
    lines = reqs * 100
    return dict(cpu=m["cpu_s"], lines=lines, rate=s["http_reqs"]["rate"] * 100,
                p95=s["http_req_duration"]["p(95)"], p95_schedule=None,
                failed=round(s["http_req_failed"].get("value", 0) * reqs) * 100,
                load=m["load_avg_min_max"], exit=m["exit"])

def logbench(name):
    m = json.load(open(os.path.join(out, name + ".json")))
    run = os.path.join(out, "runs", name)
    row = next(csv.DictReader(open(os.path.join(run, "summary.csv"))))
    ing = next(csv.DictReader(open(os.path.join(run, "ingest.csv"))))
    acked = int(row["acked"])
    ack_s = float(ing["ack_s"] or "nan")
    failed = sum(int(x.split("=")[1]) for x in row["failures"].split(";") if "=" in x) if row["failures"] else 0
    return dict(cpu=m["cpu_s"], lines=acked, rate=acked / ack_s if ack_s > 0 else float("nan"),
                p95=float(row.get("request_p95_ms") or "nan"), p95_schedule=float(row["p95_ms"]), failed=failed,
                load=m["load_avg_min_max"], exit=m["exit"],
                visible=f"{ing['visible'] or 0}/{ing['sampled'] or 0}")

print("\n| rate | backend | round | tool | exit | CPU-s | lines | lines/CPU-s | achieved lines/s | request p95 ms | "
      "p95 ms from schedule | failed lines | load average |")
print("|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
ratios = {}
for rate in rates:
    for t in targets:
        for n, suffix in enumerate(suffixes, 1):
            a, b = k6(f"k6-{t}-{rate}{suffix}"), logbench(f"logbench-{t}-{rate}{suffix}")
            for tool, r in (("k6 (seed 000's script)", a), ("logbench generate", b)):
                print(f"| {int(rate):,} | {t} | {n} | {tool} | {r['exit']} | {r['cpu']:.1f} | {r['lines']:,} | "
                      f"{r['lines'] / r['cpu']:,.0f} | {r['rate']:,.0f} | {r['p95']:.1f} | "
                      f"{'-' if r['p95_schedule'] is None else format(r['p95_schedule'], '.1f')} | {r['failed']:,} | "
                      f"{r['load'][0]}-{r['load'][1]} |")
            ratios.setdefault((rate, t), []).append((b["lines"] / b["cpu"]) / (a["lines"] / a["cpu"]))
print()
for (rate, t), xs in ratios.items():
    each = ", ".join(f"{x:.1f}" for x in xs)
    median = f"; median {statistics.median(xs):.1f}" if len(xs) > 1 else ""
    print(f"{int(rate):,} lines/s, {t}: logbench sends {each} times the lines per CPU-second of k6{median}")
print("(request p95: the request alone, from its send to its answer: k6's http_req_duration, logbench's request_p95_ms;"
      " p95 from schedule: logbench's from each batch's scheduled time, lateness included, which k6 does not measure)")
EOF
