#!/usr/bin/env bash
# What visibility sampling costs a run: `generate` at a constant rate into a real VictoriaLogs (or
# Loki), with visibility.sample at each of SAMPLES, for each jar of JARS, interleaved ROUNDS times
# and reversed every other round (A B, B A, A B, ...), so a changing load on a shared machine falls
# on every build alike and no value always follows the other. Before each measured run it waits for
# the server to go quiet (under QUIET_SHARE [0.03] of a core over 2 s, at most QUIET_MAX [120] s):
# a run that starts while the server still merges what the run before wrote may have a slower tail.
# ORDER=fixed and QUIET_MAX=0 measure as the twenty-third round and those before it did.
# Prints per run the whole process's CPU (user + sys), p50 and p95 from the scheduled time, the
# request's own p95 (from its send), the visibility figures, the server's CPU while it ran (its
# queries of the samples included) and the load average; every run's JSON is in OUT. Then the
# target's figures, pair by pair (see the end).
#
# Environment (defaults in brackets):
#   JARS ["current:jobs/target/logbench.jar"]   label:path pairs, space-separated; OPTS_<label>, if
#     set, replaces JAVA_OPTS for that label (the same jar twice with other JVM options); JAVA_<label>,
#     if set, is the java that runs it (e.g. a Java 25 beside the PATH's Java 17)
#   SAMPLES ["100 0"]   visibility.sample values (0: off); N@POLL also sets visibility.poll (e.g. 100@1s)
#   BACKEND [victorialogs]   victorialogs or loki (a real server, from LOGBENCH_*_BIN)
#   RATE [100000]  LINES [100] (a request)  DURATION [60] (s)  ROUNDS [2]
#   PARALLELISM [auto] (the run file's, as servers.sh writes it)  JAVA_OPTS [-Xmx1g]  OUT [target/visibility-bench]
#   WARMUP [10] s of the first jar at 20k lines/s into the fresh server first, not measured (a
#     fresh VictoriaLogs answered its first minute seconds late in these runs; it also makes the
#     first jar's class-data archive); then one unmeasured 1-s run of each label at 100 lines/s,
#     so that no measured run is the one that makes a label's archive
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=servers.sh
source "$root/deploy/bench/servers.sh"
jars="${JARS:-current:$root/jobs/target/logbench.jar}"
samples="${SAMPLES:-100 0}"
backend="${BACKEND:-victorialogs}"
rate="${RATE:-100000}"
lines="${LINES:-100}"
duration="${DURATION:-60}"
rounds="${ROUNDS:-2}"
java_opts="${JAVA_OPTS:--Xmx1g}"
out="${OUT:-$root/target/visibility-bench}"
mkdir -p "$out"
for j in $jars; do
  [[ -f "${j#*:}" ]] || { echo "visibility.sh: the jar ${j#*:} is missing; build first: mvn -B -ntp -q -DskipTests package" >&2; exit 2; }
done

trap stop_servers EXIT
case "$backend" in
  victorialogs) start_victorialogs "$out/server"; url="$VL_URL"; block="  - kind: victorialogs" ;;
  loki) start_loki "$out/server"; url="$LOKI_URL"; block=$'  - kind: loki\n    format: json' ;;
  *) echo "visibility.sh: BACKEND is '$backend'; expected victorialogs or loki." >&2; exit 2 ;;
esac
server_pid="${server_pids[-1]}"
server_cpu() { # the server process's CPU-s so far (user + sys)
  python3 -c 'import os,sys; f=open(f"/proc/{sys.argv[1]}/stat").read().rsplit(")",1)[1].split(); print((int(f[11])+int(f[12]))/os.sysconf("SC_CLK_TCK"))' "$server_pid" 2>/dev/null \
    || echo nan # the server is gone: the runs after say so by failing
}
quiet_share="${QUIET_SHARE:-0.03}" quiet_max="${QUIET_MAX:-120}"
quiet() { # waits until the server took under QUIET_SHARE of a core over 2 s, at most QUIET_MAX s; says how long
  (( quiet_max > 0 )) || { echo "not waited for"; return; }
  local waited=0 before after
  before="$(server_cpu)"
  while (( waited < quiet_max )); do
    sleep 2
    waited=$(( waited + 2 ))
    after="$(server_cpu)"
    if awk -v a="$before" -v b="$after" -v share="$quiet_share" 'BEGIN { exit !((b - a) / 2 < share) }'; then
      echo "quiet after $waited s"
      return
    fi
    before="$after"
  done
  echo "not quiet after $quiet_max s"
}
echo "visibility.sh: $backend at $url; $rate lines/s, $lines a request, $duration s; samples: $samples"

run_file() { # name sample[@poll] -> path
  local f="$out/$1.yaml" visibility="sample: ${2%@*}"
  [[ "$2" == *@* ]] && visibility+=", poll: ${2#*@}"
  app_run_file "$f" "$1" "$rate" "$duration" "$lines" "visibility: {$visibility}" "$block
    name: bench
    url: $url
    delivery: load-test"
  echo "$f"
}

warmup="${WARMUP:-10}"
if (( warmup > 0 )); then
  first="${jars%% *}"
  saved_rate="$rate" saved_duration="$duration"
  rate=20000 duration="$warmup"
  # shellcheck disable=SC2086
  java $java_opts -jar "${first#*:}" generate "$(run_file warmup 0)" --run-dir "$out/runs/warmup" --quiet \
    > "$out/warmup.log" 2>&1 || true
  rate="$saved_rate" duration="$saved_duration"
fi
saved_rate="$rate" saved_duration="$duration"
rate=100 duration=1
for j in $jars; do
  label="${j%%:*}"
  opts_var="OPTS_$label" java_var="JAVA_$label"
  # shellcheck disable=SC2086
  "${!java_var:-java}" ${!opts_var:-$java_opts} -jar "${j#*:}" generate "$(run_file "archive-$label" 0)" \
    --run-dir "$out/runs/archive-$label" --quiet > "$out/archive-$label.log" 2>&1 || true
done
rate="$saved_rate" duration="$saved_duration"

for round in $(seq "$rounds"); do
  # every (jar, sample) of the round, in the given order on odd rounds and reversed on even ones
  # (A B, B A, A B, ...): a run that follows another may find the server still merging what that one
  # wrote, and which value comes first must not decide the pairs
  combos=()
  for j in $jars; do
    for s in $samples; do
      combos+=("$s|$j")
    done
  done
  if [[ "${ORDER:-alternate}" != fixed ]] && (( round % 2 == 0 )); then
    reversed=()
    for (( i = ${#combos[@]} - 1; i >= 0; i-- )); do reversed+=("${combos[i]}"); done
    combos=("${reversed[@]}")
  fi
  for combo in "${combos[@]}"; do
    s="${combo%%|*}" j="${combo#*|}"
    label="${j%%:*}"
    jar="${j#*:}"
    opts_var="OPTS_$label" java_var="JAVA_$label"
    opts="${!opts_var:-$java_opts}"
    java_bin="${!java_var:-java}"
    name="$label-s${s/@/-poll}-r$round"  # a run name has no @
    rm -rf "$out/runs/$name"
    quiet > "$out/$name.quiet"
    server_before="$(server_cpu)"
    # shellcheck disable=SC2086
    python3 "$root/deploy/bench/measure.py" --label "$name" --out "$out/$name.json" -- \
      "$java_bin" $opts -jar "$jar" generate "$(run_file "$name" "$s")" --run-dir "$out/runs/$name" --quiet \
      > "$out/$name.log" 2>&1 || true
    python3 -c 'import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 2))' "$server_before" "$(server_cpu)" \
      > "$out/$name.server"
    python3 - "$out" "$name" <<'EOF'
import csv, json, os, sys
out, name = sys.argv[1], sys.argv[2]
server = open(os.path.join(out, name + ".server")).read().strip()
quiet = open(os.path.join(out, name + ".quiet")).read().strip()
m = json.load(open(os.path.join(out, name + ".json")))
run = os.path.join(out, "runs", name)
row = next(csv.DictReader(open(os.path.join(run, "summary.csv"))))
ing = next(csv.DictReader(open(os.path.join(run, "ingest.csv"))))
top = ", ".join(f"{k} {v}" for k, v in list(m["threads_cpu_s"].items())[:6])
print(f"{name}: exit {m['exit']}, {m['cpu_s']} CPU-s ({m['cpu_user_s']} user + {m['cpu_sys_s']} sys), "
      f"wall {m['wall_s']} s, acked {int(row['acked']):,} of {int(row['lines']):,}, p50/p95 from schedule "
      f"{row['p50_ms']}/{row['p95_ms']} ms, request p95 {row.get('request_p95_ms') or '-'} ms, visible p50/p95 "
      f"from ack {ing['visible_from_ack_p50_ms'] or '-'}/"
      f"{ing['visible_from_ack_p95_ms'] or '-'} ms ({ing['visible'] or 0} of {ing['sampled'] or 0} samples, "
      f"{ing['poll_errors'] or 0} poll errors), the server {server} CPU-s meanwhile (the server was {quiet}), "
      f"load {m['load_avg_min_max'][0]}-{m['load_avg_min_max'][1]}; threads: {top}")
EOF
  done
done

# The target's figures, per label and round, for the first sample value of SAMPLES against the last
# (the default 100 against 0): the share of the sampled run's CPU that sampling took, (CPU with -
# CPU without) / CPU with, and how far it moved p95 from the schedule, (p95 with - p95 without) /
# p95 without (and so p50 from the schedule and the request's own p95, from its send: one stall of
# the server sets p95 from the schedule for every batch queued behind it, while the request's own
# time counts it once per request in flight); then each figure's median over the rounds. One pair
# moves by the run-to-run spread of a shared machine; the median of several pairs, taken side by
# side, is the figure to read.
python3 - "$out" "$rounds" "$samples" $jars <<'EOF_PY'
import csv, json, os, statistics, sys
out, rounds, samples, jars = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4:]
if len(samples) < 2:
    sys.exit(0)
on, off = samples[0], samples[-1]
name = lambda label, s, r: f"{label}-s{s.replace('@', '-poll')}-r{r}"
# the latency figures whose moves are printed: summary.csv's column, and how the move is named
latencies = [("p95_ms", "p95"), ("p50_ms", "p50"), ("request_p95_ms", "the request's own p95")]
def run(name):
    m = json.load(open(os.path.join(out, name + ".json")))
    row = next(csv.DictReader(open(os.path.join(out, "runs", name, "summary.csv"))))
    figures = {column: float(row.get(column) or "nan") for column, _ in latencies}
    return m["cpu_s"], float(open(os.path.join(out, name + ".server")).read()), figures
move = lambda a, b: (a - b) / b if b > 0 else float("nan")
median = lambda xs: statistics.median(xs) if xs and all(x == x for x in xs) else float("nan")
for j in jars:
    label = j.split(":", 1)[0]
    shares, servers, moves = [], [], {column: [] for column, _ in latencies}
    for r in range(1, rounds + 1):
        try:
            (c1, s1, f1), (c0, s0, f0) = run(name(label, on, r)), run(name(label, off, r))
        except (OSError, StopIteration, KeyError, ValueError) as e:
            print(f"{label} round {r}: no pair ({e})")
            continue
        p1, p0 = f1["p95_ms"], f0["p95_ms"]
        if c1 <= 0 or p0 <= 0:
            print(f"{label} round {r}: no pair (CPU {c1} with sampling, p95 {p0:g} ms without)")
            continue
        shares.append((c1 - c0) / c1)
        servers.append(s1 - s0)
        for column, _ in latencies:
            moves[column].append(move(f1[column], f0[column]))
        others = ", ".join(f"{what} by {moves[column][-1]:+.1%}" for column, what in latencies[1:])
        print(f"{label} round {r}: sample {on} {c1} CPU-s, p95 {p1:g} ms, server {s1} CPU-s; sample {off} {c0} CPU-s, "
              f"p95 {p0:g} ms, server {s0} CPU-s: sampling took {shares[-1]:+.1%} of the CPU, moved p95 by "
              f"{moves['p95_ms'][-1]:+.1%} ({others}), and cost the server {servers[-1]:+.2f} CPU-s")
    if shares:
        p95 = moves["p95_ms"]
        others = ", ".join(f"{what} by {median(moves[column]):+.1%}" for column, what in latencies[1:])
        print(f"{label}: median over {len(shares)} pairs: sampling took {median(shares):+.1%} of the CPU, "
              f"moved p95 by {median(p95):+.1%} ({sum(x > 0 for x in p95)} up, {sum(x < 0 for x in p95)} down), "
              f"{others}, cost the server {median(servers):+.2f} CPU-s")
EOF_PY
