#!/usr/bin/env bash
# A canary soak: `logbench canary` for MINUTES at RATE lines/s (app-json, 20 streams, windows of 1
# minute) into a real VictoriaLogs of its own (fresh data directory, on 127.0.0.1), sampled every
# EVERY seconds into OUT/soak.csv by canary_soak.py: the CPU-seconds and RSS of the whole process
# tree (`java -jar` runs the command in a second JVM), the heap after GC (from -Xlog:gc), the
# checkpoints' bytes, the run directory's bytes and files, VictoriaLogs' bytes, windows by verdict
# and the load average. At the end it stops the canary with SIGTERM, waits for its clean exit (a
# savepoint) and prints a table per 10 minutes and the first 10 minutes against the last.
#
#   deploy/bench/canary-soak.sh [--rate N] [--minutes M] [--out DIR] [--every S] [--idle]
#
#   --rate 1000  --minutes 60  --out target/canary-soak  --every 60
#   --idle       the idle canary: --rate 10 --minutes 20 --out target/canary-idle (unless given),
#   (both modes print the CPU-seconds per minute after the first 2 minutes, the JVMs' start)
#
# The canary's settings are the defaults (settle 30s, max_wait 5m, recheck 5s, retention 7d, spot
# checks at 1h, 6h, 24h and 6 an hour older, checkpoints every 10s) with --status-every 10m and
# --prometheus on a free loopback port (scraped for the stored and open windows). JAVA_OPTS
# (default none: the JVM's own heap sizing) go to both JVMs; -Xlog:gc is added. OUT is emptied.
# Needs LOGBENCH_VICTORIALOGS_BIN and the jar (mvn -B -ntp -q -DskipTests package).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=servers.sh
source "$root/deploy/bench/servers.sh"
rate="" minutes="" out="" every=60 idle=0
while (( $# )); do
  case "$1" in
    --rate) rate="$2"; shift 2 ;;
    --minutes) minutes="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --every) every="$2"; shift 2 ;;
    --idle) idle=1; shift ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "canary-soak.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if (( idle )); then
  rate="${rate:-10}" minutes="${minutes:-20}" out="${out:-$root/target/canary-idle}" skip=2
else
  rate="${rate:-1000}" minutes="${minutes:-60}" out="${out:-$root/target/canary-soak}" skip=2
fi
jar="$root/jobs/target/logbench.jar"
[[ -f "$jar" ]] || { echo "canary-soak.sh: the jar $jar is missing; build first: mvn -B -ntp -q -DskipTests package" >&2; exit 2; }
need_bin LOGBENCH_VICTORIALOGS_BIN "a VictoriaLogs single-node binary"
rm -rf "$out"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

canary_pid=""
cleanup() {
  if [[ -n "$canary_pid" ]] && kill -0 "$canary_pid" 2>/dev/null; then
    kill -TERM "$canary_pid" 2>/dev/null || true
    wait "$canary_pid" 2>/dev/null || true
  fi
  stop_servers
}
trap cleanup EXIT

start_victorialogs "$out/server"
vl_version="$("$LOGBENCH_VICTORIALOGS_BIN" -version 2>/dev/null | tail -1)"
prom_port="$(free_port)"
name="soak-r$rate"
app_run_file "$out/canary.yaml" "$name" "$rate" "" 100 "canary: {}" "  - kind: victorialogs
    name: victorialogs
    url: $VL_URL"
echo "canary-soak.sh: VictoriaLogs $vl_version at $VL_URL; canary $name, $rate lines/s, windows of 1m," \
  "$minutes min, sampled every $every s into $out/soak.csv; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

# shellcheck disable=SC2086
java ${JAVA_OPTS:-} "-Xlog:gc:file=$out/gc-%p.log" -jar "$jar" canary "$out/canary.yaml" --run-dir "$out/run" \
  --status-every 10m --prometheus "127.0.0.1:$prom_port" > "$out/canary.out" 2> "$out/canary.err" &
canary_pid=$!
started=$(date +%s)
sampled=0
python3 "$root/deploy/bench/canary_soak.py" sample --pid "$canary_pid" --out "$out" --minutes "$minutes" \
  --every "$every" --metrics "http://127.0.0.1:$prom_port/metrics" || sampled=$?

stop_at=$(date +%s)
code=""
if kill -0 "$canary_pid" 2>/dev/null; then
  kill -TERM "$canary_pid"
  code=0
  wait "$canary_pid" || code=$?
fi
canary_pid=""
echo "canary-soak.sh: ran $(( stop_at - started )) s; SIGTERM -> exit ${code:-"(had already ended)"} after" \
  "$(( $(date +%s) - stop_at )) s; sampler exit $sampled"
tail -2 "$out/canary.err"
tail -1 "$out/canary.out"
python3 "$root/deploy/bench/canary_soak.py" report "$out/soak.csv" --skip "$skip"
[[ "$sampled" == 0 && "$code" == 0 ]]
