#!/usr/bin/env bash
# Seed 004's comparison for one day of its month, measured on real servers: for each of Loki,
# VictoriaLogs and OpenSearch alone on the machine (each in turn, a fresh data directory, the same
# JVM settings), `generate` sends the day of config/seed004-month.yaml as fast as the server takes
# it (schedule max, at-least-once), then `verify` at 1d and 1m, `query` (the seed's searches,
# cold/median/worst, every cell checked against the exact answer) and `compare`; then one run with
# the three at once (the seed's fan-out). Prints the seed's table for the day, measured, and keeps
# every run directory with its report (servers' data deleted unless --keep-data).
#
#   eval "$(path/to/install.sh)"   # or export LOGBENCH_LOKI_BIN=... LOGBENCH_VICTORIALOGS_BIN=...
#   deploy/bench/seed004-day.sh [--day 2021-05-02] [--backends loki,victorialogs,opensearch]
#       [--runs alone,fanout] [--settings bulk|defaults|both] [--hours N] [--repeat 5]
#       [--out DIR] [--keep-data]
#
# --hours N sends only the day's first N hours: a slice for trying the script, not the seed's
# comparison. --settings: `bulk` (the default) runs each server with the settings a careful user
# picks for bulk loading (written next to the figures, servers.csv in each run directory);
# `defaults` with the server's defaults except what May 2021 lines need to be stored at all;
# `both` runs each backend alone with each (the fan-out with the bulk settings).
#
# Environment (defaults in brackets):
#   LOGBENCH_LOKI_BIN, LOGBENCH_VICTORIALOGS_BIN   the servers' binaries (required for those backends)
#   JAVA_OPTS [-Xms3g -Xmx3g]                      logbench's JVM (generate, verify, query)
#   OPENSEARCH_JAVA_OPTS [-Xms4g -Xmx4g]           the OpenSearch node's JVM
# Needs a package build first (mvn -B -ntp -q -DskipTests package): jobs/target/logbench.jar and
# servers/target/logbench-servers.jar.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
me=seed004-day.sh
day=2021-05-02
backends=loki,victorialogs,opensearch
runs=alone,fanout
settings=bulk
hours=24
repeat=5
out=
keep_data=no
java_opts="${JAVA_OPTS:--Xms3g -Xmx3g}"
os_java_opts="${OPENSEARCH_JAVA_OPTS:--Xms4g -Xmx4g}"

fail() { echo "$me: $*" >&2; exit 2; }
need_value() { [ $# -ge 2 ] && [ -n "$2" ] || fail "$1 needs a value."; }

while [ $# -gt 0 ]; do
  case "$1" in
    --day) need_value "$@"; day=$2; shift ;;
    --backends) need_value "$@"; backends=$2; shift ;;
    --runs) need_value "$@"; runs=$2; shift ;;
    --settings) need_value "$@"; settings=$2; shift ;;
    --hours) need_value "$@"; hours=$2; shift ;;
    --repeat) need_value "$@"; repeat=$2; shift ;;
    --out) need_value "$@"; out=$2; shift ;;
    --keep-data) keep_data=yes ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) fail "unknown argument '$1'; expected --day, --backends, --runs, --settings, --hours, --repeat, --out or --keep-data (--help for more)." ;;
  esac
  shift
done

# ------------------------------------------------------------------ checking the command line
[[ "$day" =~ ^2021-05-(0[1-9]|[12][0-9]|3[01])$ ]] \
  || fail "--day $day is not valid; expected a day of May 2021 as YYYY-MM-DD, from 2021-05-01 to 2021-05-31."
[[ "$hours" =~ ^[0-9]+$ ]] && [ "$hours" -ge 1 ] && [ "$hours" -le 24 ] \
  || fail "--hours $hours is not valid; expected a whole number of hours from 1 to 24."
[[ "$repeat" =~ ^[0-9]+$ ]] && [ "$repeat" -ge 1 ] \
  || fail "--repeat $repeat is not valid; expected a whole number of runs of each search, at least 1."
case "$settings" in bulk|defaults|both) ;; *)
  fail "--settings $settings is not valid; expected bulk, defaults or both." ;; esac
IFS=, read -r -a backend_list <<< "$backends"
[ ${#backend_list[@]} -ge 1 ] || fail "--backends '' is not valid; expected one or more of loki, victorialogs, opensearch, separated by commas."
for b in "${backend_list[@]}"; do
  case "$b" in loki|victorialogs|opensearch) ;; *)
    fail "--backends $backends is not valid: '$b' is no backend of this benchmark; expected one or more of loki, victorialogs, opensearch, separated by commas." ;;
  esac
done
IFS=, read -r -a run_list <<< "$runs"
for r in "${run_list[@]}"; do
  case "$r" in alone|fanout) ;; *)
    fail "--runs $runs is not valid: '$r' is no kind of run; expected alone, fanout or alone,fanout." ;;
  esac
done
has() { local x=$1; shift; for y in "$@"; do [ "$x" = "$y" ] && return 0; done; return 1; }

jar="$root/jobs/target/logbench.jar"
servers_jar="$root/servers/target/logbench-servers.jar"
for f in "$jar" "$servers_jar"; do
  [ -f "$f" ] || fail "$f is missing; build first: mvn -B -ntp -q -DskipTests package"
done
for b in "${backend_list[@]}"; do
  case "$b" in
    loki) var=LOGBENCH_LOKI_BIN what="a Grafana Loki 3.x binary (one binary, -target=all)" ;;
    victorialogs) var=LOGBENCH_VICTORIALOGS_BIN what="a VictoriaLogs single-node binary" ;;
    *) continue ;;
  esac
  bin="${!var:-}"
  [ -n "$bin" ] || fail "backend $b needs its server, and $var is not set: set it to $what, or leave $b out of --backends."
  [ -x "$bin" ] || fail "backend $b: $var is $bin, which is not an executable file."
done
for tool in curl python3 awk du; do
  command -v "$tool" > /dev/null || fail "$tool is needed and not on PATH."
done

from="${day}T00:00:00-03:00"
if [ "$hours" -eq 24 ]; then
  until="$(date -d "$day + 1 day" +%F)T00:00:00-03:00"
  slice=day
else
  until="$(printf '%sT%02d:00:00-03:00' "$day" "$hours")"
  slice="${hours}h"
fi
if [ -z "$out" ]; then
  out="$root/runs/seed004-$day"
  [ "$hours" -eq 24 ] || out="$out-$slice"
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"

# ------------------------------------------------------------------ helpers
children=()
cleanup() {
  local pid
  for pid in "${children[@]}"; do
    kill "$pid" 2> /dev/null || true
  done
  for pid in "${children[@]}"; do
    wait "$pid" 2> /dev/null || true
  done
  children=()
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
load() { cut -d' ' -f1-3 /proc/loadavg; }
now() { date +%s.%N; }

# wait_for NAME PID SECONDS COMMAND...: until COMMAND succeeds; fails when PID exits or time is up
wait_for() {
  local name=$1 pid=$2 limit=$3; shift 3
  local deadline=$(( $(date +%s) + limit ))
  until "$@" > /dev/null 2>&1; do
    kill -0 "$pid" 2> /dev/null || { echo "$me: $name exited before it was ready; see its log." >&2; return 1; }
    [ "$(date +%s)" -lt "$deadline" ] || { echo "$me: $name was not ready within $limit s; see its log." >&2; return 1; }
    sleep 0.5
  done
}

# setting FILE BACKEND NAME VALUE: one row of servers.csv
setting() { printf '%s,%s,"%s"\n' "$2" "$3" "${4//\"/\"\"}" >> "$1"; }

# ------------------------------------------------------------------ Loki
loki_config() { # MODE DIR HTTP GRPC
  local mode=$1 dir=$2 http=$3 grpc=$4 limits chunks
  if [ "$mode" = bulk ]; then
    # Loki's rate limits (4 MB/s a tenant, 3 MB/s a stream) would answer a bulk load 429.
    limits="  ingestion_rate_mb: 1024
  ingestion_burst_size_mb: 1024
  per_stream_rate_limit: 512MB
  per_stream_rate_limit_burst: 1024MB
  max_global_streams_per_user: 100000"
  else
    limits="  ingestion_rate_mb: 4
  ingestion_burst_size_mb: 6
  per_stream_rate_limit: 3MB
  per_stream_rate_limit_burst: 15MB
  max_global_streams_per_user: 5000"
  fi
  # Chunks at Loki's defaults in both: each stream's lines arrive in time order, so a chunk is cut
  # at max_chunk_age of the lines' own time (2 h of a stream) or at chunk_target_size; raising the
  # age also widens the out-of-order window (half of it) and the ingester's memory.
  chunks="  chunk_target_size: 1572864
  chunk_encoding: snappy
  max_chunk_age: 2h
  chunk_idle_period: 30m"
  cat <<EOF
# Written by deploy/bench/seed004-day.sh ($mode settings).
target: all
auth_enabled: false
server:
  http_listen_address: 127.0.0.1
  http_listen_port: $http
  grpc_listen_address: 127.0.0.1
  grpc_listen_port: $grpc
  log_level: warn
  # a day's search by path per 30 s answers 300 series of 2,880 points: over gRPC's 4 MB default
  grpc_server_max_recv_msg_size: 104857600
  grpc_server_max_send_msg_size: 104857600
  # searches of a whole day may take longer than the 30 s default on two busy cores
  http_server_read_timeout: 10m
  http_server_write_timeout: 10m
common:
  path_prefix: $dir
  instance_addr: 127.0.0.1
  replication_factor: 1
  ring:
    instance_addr: 127.0.0.1
    kvstore:
      store: inmemory
  storage:
    filesystem:
      chunks_directory: $dir/chunks
      rules_directory: $dir/rules
# May 2021 lines: a schema period that starts before them (v13 with tsdb for structured metadata)
schema_config:
  configs:
    - from: 2020-01-01
      store: tsdb
      object_store: filesystem
      schema: v13
      index:
        prefix: index_
        period: 24h
ingester:
  lifecycler:
    min_ready_duration: 0s
    final_sleep: 0s
  # old lines still in the ingester's memory are visible to queries
  query_store_max_look_back_period: -1
$chunks
# every repeat of a search is computed again, never answered from a cache
query_range:
  cache_results: false
  cache_index_stats_results: false
  cache_volume_results: false
  cache_series_results: false
  cache_label_results: false
  cache_instant_metric_results: false
limits_config:
  reject_old_samples: false
  allow_structured_metadata: true
  max_query_lookback: 0s
  query_timeout: 10m
$limits
compactor:
  working_directory: $dir/compactor
analytics:
  reporting_enabled: false
EOF
}

start_loki() { # MODE DATA RUNDIR
  local mode=$1 data=$2 rundir=$3 http grpc pid
  http=$(free_port); grpc=$(free_port)
  mkdir -p "$data"
  loki_config "$mode" "$data" "$http" "$grpc" > "$rundir/loki.yaml"
  "$LOGBENCH_LOKI_BIN" -config.file="$rundir/loki.yaml" > "$rundir/loki.log" 2>&1 &
  pid=$!; children+=("$pid")
  LOKI_URL="http://127.0.0.1:$http"
  wait_for Loki "$pid" 180 sh -c "curl -sf '$LOKI_URL/ready' | grep -qx ready"
  local version
  version=$(curl -sf "$LOKI_URL/loki/api/v1/status/buildinfo" | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')
  local f="$rundir/servers.csv"
  setting "$f" loki version "Loki $version ($LOGBENCH_LOKI_BIN), target all, filesystem storage"
  setting "$f" loki settings "$mode"
  sed -n '/^limits_config:/,/^compactor:/p' "$rundir/loki.yaml" | sed '1d;$d' | sed 's/^ *//' | paste -sd';' \
    | sed 's/;/; /g' | { read -r l; setting "$f" loki limits_config "$l"; }
  sed -n '/^ingester:/,/^# every/p' "$rundir/loki.yaml" | grep -E 'chunk|max_chunk' | sed 's/^ *//' | paste -sd';' \
    | sed 's/;/; /g' | { read -r l; setting "$f" loki ingester "$l (Loki's defaults, written out)"; }
  setting "$f" loki "other" "schema v13 tsdb from 2020-01-01; query_store_max_look_back_period -1; results caches off; WAL on (default)"
  echo "  Loki $version at $LOKI_URL ($mode settings, data in $data)"
}

# ------------------------------------------------------------------ VictoriaLogs
start_victorialogs() { # MODE DATA RUNDIR
  local mode=$1 data=$2 rundir=$3 port pid flags
  port=$(free_port)
  mkdir -p "$data"
  # May 2021 lines are older than the default 7-day retention and would be dropped with 200 answered;
  # nothing else departs from the defaults, in either mode (VictoriaLogs has no bulk-loading knob).
  flags=(-httpListenAddr="127.0.0.1:$port" -storageDataPath="$data" -retentionPeriod=100y)
  "$LOGBENCH_VICTORIALOGS_BIN" "${flags[@]}" > "$rundir/victorialogs.log" 2>&1 &
  pid=$!; children+=("$pid")
  VL_URL="http://127.0.0.1:$port"
  wait_for VictoriaLogs "$pid" 120 curl -sf "$VL_URL/health"
  local version
  version=$(curl -sf "$VL_URL/metrics" | sed -n 's/^vm_app_version{.*short_version="\([^"]*\)".*/\1/p' | head -1)
  local f="$rundir/servers.csv"
  setting "$f" victorialogs version "VictoriaLogs ${version:-unknown} ($LOGBENCH_VICTORIALOGS_BIN), single node"
  setting "$f" victorialogs settings "$mode"
  setting "$f" victorialogs flags "-retentionPeriod=100y (May 2021 lines; the default 7d drops them); every other flag at its default (-inmemoryDataFlushInterval 5s, -memory.allowedPercent 60, -search.maxQueryDuration 30s)"
  echo "  VictoriaLogs ${version:-unknown} at $VL_URL ($mode settings, data in $data)"
}

# ------------------------------------------------------------------ OpenSearch
OS_INDEX=seed004
start_opensearch() { # MODE DATA RUNDIR
  local mode=$1 data=$2 rundir=$3 pid
  mkdir -p "$data"
  # shellcheck disable=SC2086 # the JVM options are words
  java $os_java_opts -cp "$servers_jar" io.logbench.servers.ServerMain opensearch --dir "$data" \
    > "$rundir/opensearch.log" 2>&1 &
  pid=$!; children+=("$pid")
  wait_for OpenSearch "$pid" 240 grep -q '^logbench-server ready opensearch ' "$rundir/opensearch.log"
  OS_URL=$(sed -n 's/^logbench-server ready opensearch //p' "$rundir/opensearch.log" | head -1)
  local version
  version=$(curl -sf "$OS_URL/" | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"]["number"])')
  local f="$rundir/servers.csv"
  setting "$f" opensearch version "OpenSearch $version, one node in its own JVM (servers/target/logbench-servers.jar)"
  setting "$f" opensearch settings "$mode"
  setting "$f" opensearch heap "$os_java_opts"
  if [ "$mode" = bulk ]; then
    # the settings OpenSearch's "tuning for indexing speed" gives, for the index logbench creates
    local template='{"index_patterns":["'$OS_INDEX'*"],"template":{"settings":{"index.number_of_shards":1,"index.number_of_replicas":0,"index.refresh_interval":"30s","index.codec":"best_compression","index.translog.flush_threshold_size":"1gb"}}}'
    curl -sf -X PUT -H 'Content-Type: application/json' "$OS_URL/_index_template/$OS_INDEX" -d "$template" > /dev/null \
      || { echo "$me: OpenSearch refused the index template $template" >&2; return 1; }
    setting "$f" opensearch index "1 shard, 0 replicas, refresh_interval 30s, codec best_compression (zlib), translog.flush_threshold_size 1gb (an index template)"
  else
    setting "$f" opensearch index "OpenSearch's defaults: 1 shard, 1 replica (unassigned on one node), refresh_interval 1s, codec default (LZ4), translog.flush_threshold_size 512mb"
  fi
  setting "$f" opensearch mapping "logbench's: @timestamp date_nanos, seq long, message text, logbench_run keyword; labels dynamic (text with a keyword sub-field)"
  echo "  OpenSearch $version at $OS_URL ($mode settings, heap $os_java_opts, data in $data)"
}

# ------------------------------------------------------------------ one run
run_file() { # NAME RUNDIR BACKEND... -> writes RUNDIR/run.yaml
  local name=$1 rundir=$2; shift 2
  {
    echo "# Written by deploy/bench/seed004-day.sh from config/seed004-month.yaml: the slice"
    echo "# [$from, $until), to $*."
    awk -v name="$name" -v from="$from" -v until="$until" '
      /^name:/ { print "name: " name; next }
      /^dataset:/ { print; print "  from: \"" from "\""; print "  until: \"" until "\""; next }
      { print }' "$root/config/seed004-month.yaml"
    echo "run:"
    echo "  dir: '$rundir'"
    # the write-to-visible polls: OpenSearch's 30 s refresh makes a batch visible up to 30 s late
    echo "visibility:"
    echo "  timeout: 5m"
    echo "backends:"
    for b in "$@"; do
      case "$b" in
        loki) echo "  - {kind: loki, url: '$LOKI_URL', timeout: 60s, query_timeout: 10m, flush_timeout: 15m}" ;;
        victorialogs) echo "  - {kind: victorialogs, url: '$VL_URL', retention: 36500d, timeout: 60s, query_timeout: 10m}" ;;
        opensearch) echo "  - {kind: opensearch, name: opensearch, url: '$OS_URL', index: $OS_INDEX, timeout: 60s, query_timeout: 10m}" ;;
      esac
    done
  } > "$rundir/run.yaml"
}

# step RUNDIR NAME COMMAND...: runs one logbench step, its output in NAME.log, its time and the load
# averages in steps.csv; returns the step's exit code
step() {
  local rundir=$1 name=$2; shift 2
  local t0 t1 l0 code=0
  l0=$(load); t0=$(now)
  # shellcheck disable=SC2086 # the JVM options are words
  java $java_opts -jar "$jar" "$@" > "$rundir/$name.log" 2>&1 || code=$?
  t1=$(now)
  local secs; secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  printf '%s,%d,%s,%s,%s\n' "$name" "$code" "$secs" "$l0" "$(load)" >> "$rundir/steps.csv"
  printf '    %-10s exit %d, %7s s, load %s -> %s\n' "$name" "$code" "$secs" "$l0" "$(load)"
  return "$code"
}

# settled RUNDIR BACKEND...: each server's own stored-size figure once the run is over (after the
# searches), and its data directory on disk, into settled.csv
settled() {
  local rundir=$1; shift
  local f="$rundir/settled.csv" b bytes files
  echo "backend,stored_bytes,source,data_dir_bytes" > "$f"
  for b in "$@"; do
    case "$b" in
      loki)
        curl -sf -X POST "$LOKI_URL/flush" > /dev/null || true
        bytes=$(curl -sf "$LOKI_URL/metrics" | awk '/^loki_ingester_chunk_stored_bytes_total\{/ { s += $2 } END { printf "%.0f", s }')
        src="loki_ingester_chunk_stored_bytes_total after another POST /flush" ;;
      victorialogs)
        curl -sf "$VL_URL/internal/force_flush" > /dev/null || true
        bytes=$(curl -sf "$VL_URL/metrics" | awk '/^vl_data_size_bytes\{/ { s += $2 } END { printf "%.0f", s }')
        src="vl_data_size_bytes (storage + indexdb), after the searches" ;;
      opensearch)
        # a flush commits the segments and trims the translog, which otherwise holds every line
        # until translog.flush_threshold_size
        curl -sf -X POST "$OS_URL/$OS_INDEX/_flush" > /dev/null || true
        bytes=$(curl -sf "$OS_URL/$OS_INDEX/_stats/store" | python3 -c 'import json,sys; print(json.load(sys.stdin)["_all"]["total"]["store"]["size_in_bytes"])')
        src="_stats/store of the index, after the searches and a _flush" ;;
    esac
    files=$(du -sb "$rundir/server-data/$b" | cut -f1)
    printf '%s,%s,"%s",%s\n' "$b" "$bytes" "$src" "$files" >> "$f"
  done
}

one_run() { # LABEL MODE BACKEND...
  local label=$1 mode=$2; shift 2
  local rundir="$out/$label" name="seed004-$day-$label" b
  if [ -e "$rundir/run.json" ]; then
    echo "$me: $rundir holds a run already; give another --out, or move it away." >&2
    return 2
  fi
  mkdir -p "$rundir"
  rm -rf "$rundir/server-data" "$rundir/servers.csv" "$rundir/steps.csv"
  echo "step,exit,seconds,load_before (1 5 15 min),load_after (1 5 15 min)" > "$rundir/steps.csv"
  echo "backend,setting,value" > "$rundir/servers.csv"
  setting "$rundir/servers.csv" logbench "java options" "$java_opts"
  setting "$rundir/servers.csv" logbench machine "$(nproc) cores, $(free -g | awk '/^Mem:/ { print $2 }') GiB; $(uname -sr)"
  echo "run $label ($mode settings): $* [$from, $until) -> $rundir; load $(load); disk: $(df -h "$out" | awk 'NR == 2 { print $4 " free" }')"
  for b in "$@"; do
    case "$b" in
      loki) start_loki "$mode" "$rundir/server-data/loki" "$rundir" ;;
      victorialogs) start_victorialogs "$mode" "$rundir/server-data/victorialogs" "$rundir" ;;
      opensearch) start_opensearch "$mode" "$rundir/server-data/opensearch" "$rundir" ;;
    esac
  done
  run_file "$name" "$rundir" "$@"
  local ok=yes code=0
  step "$rundir" generate generate "$rundir/run.yaml" || code=$?
  [ "$code" -eq 0 ] || ok=no
  # exit 1 is a run that ended with lines not acknowledged (a backend rejected some): verify and
  # query then say what each backend holds; any other code is a run that did not end
  if [ "$code" -le 1 ] && [ -f "$rundir/ledger.csv" ]; then
    step "$rundir" verify-1d verify "$rundir/run.yaml" --window 1d || ok=no
    for f in verdicts.csv missing.csv verify-summary.txt verify-stats.csv; do
      [ -f "$rundir/$f" ] && cp "$rundir/$f" "$rundir/1d-$f"
    done
    step "$rundir" verify-1m verify "$rundir/run.yaml" --window 1m || ok=no
    step "$rundir" query query "$rundir/run.yaml" --repeat "$repeat" || ok=no
  fi
  settled "$rundir" "$@" || echo "$me: the settled sizes could not all be read; see $rundir/settled.csv" >&2
  du -sb "$rundir/server-data" | awk '{ printf "    servers'"'"' data: %.2f GB on disk\n", $1 / 1e9 }'
  cleanup
  java $java_opts -jar "$jar" compare "$rundir" > "$rundir/compare.txt" 2>&1 || true
  java $java_opts -jar "$jar" report "$rundir" > /dev/null 2>&1 || true
  if [ "$keep_data" = no ]; then
    rm -rf "$rundir/server-data"
  fi
  [ "$ok" = yes ] || echo "$me: run $label did not pass every step; see the logs in $rundir." >&2
  results+=("$rundir")
}

# ------------------------------------------------------------------ the runs
results=()
echo "seed004-day: $slice of $day [$from, $until) of config/seed004-month.yaml; backends ${backend_list[*]};" \
  "runs ${run_list[*]}; settings $settings; logbench JVM $java_opts; out $out"
[ "$hours" -eq 24 ] || echo "seed004-day: --hours $hours: a slice for trying the script, not the seed's comparison (a whole day)."
modes=()
case "$settings" in bulk) modes=(bulk) ;; defaults) modes=(defaults) ;; both) modes=(bulk defaults) ;; esac
status=0
if has alone "${run_list[@]}"; then
  for mode in "${modes[@]}"; do
    for b in "${backend_list[@]}"; do
      label=$b; [ "$mode" = bulk ] || label="$b-defaults"
      one_run "$label" "$mode" "$b" || status=1
    done
  done
fi
if has fanout "${run_list[@]}" && [ ${#backend_list[@]} -gt 1 ]; then
  mode=${modes[0]}
  label=fanout; [ "$mode" = bulk ] || label=fanout-defaults
  one_run "$label" "$mode" "${backend_list[@]}" || status=1
fi

echo
# shellcheck disable=SC2086 # the JVM options are words
java $java_opts -jar "$jar" compare "${results[@]}" | tee "$out/compare.txt"
# the stored sizes read again after the searches, and the data directories on disk (WAL, translog included)
python3 - "${results[@]}" <<'PY' | tee -a "$out/compare.txt"
import csv, os, sys
print("\nstored after the searches (settled.csv), and each server's data directory on disk:")
print("%-28s %14s %8s %16s %8s" % ("backend", "stored bytes", "B/line", "data dir bytes", "B/line"))
for d in sys.argv[1:]:
    acked = {}
    if os.path.exists(os.path.join(d, "ingest.csv")):
        for r in csv.DictReader(open(os.path.join(d, "ingest.csv"))):
            acked[r["backend"]] = float(r["acked_lines"] or 0)
    if not os.path.exists(os.path.join(d, "settled.csv")):
        continue
    for r in csv.DictReader(open(os.path.join(d, "settled.csv"))):
        n = acked.get(r["backend"], 0)
        per = lambda v: "%.1f" % (float(v) / n) if n and v else "-"
        print("%-28s %14s %8s %16s %8s" % (os.path.basename(d) + "/" + r["backend"], r["stored_bytes"] or "-",
              per(r["stored_bytes"]), r["data_dir_bytes"] or "-", per(r["data_dir_bytes"])))
PY
echo "run directories (each with report.html, compare.txt, servers.csv, settled.csv, steps.csv and the logs): ${results[*]}"
exit "$status"
