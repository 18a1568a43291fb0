#!/usr/bin/env bash
# The push benchmark: what logbench's generate costs per line sent over HTTP, alone.
#
# Starts DiscardHttpServer (test sources) in its own JVM on 127.0.0.1, answering as each backend
# does on success, then runs `generate` (embedded MiniCluster) once idle and once per backend
# format and request size with a constant schedule, and prints per run the logbench process's
# CPU (from /proc/<pid>/stat), lines per CPU-second (total, and marginal over the idle run of the
# same length), threads started (JFR jdk.ThreadStart) per request after warm-up, and the achieved
# vs target rate.
#
# Environment (defaults in brackets):
#   JAR [jobs/target/logbench.jar]   the logbench jar to measure (e.g. an older build's copy)
#   SERVER_JAR [jobs/target/logbench.jar]  the jar whose Netty the discard server runs on
#   TEST_CLASSES [jobs/target/test-classes]  where DiscardHttpServer's class is (e.g. a copy)
#   DURATION [60]                    seconds of each run's schedule (the idle run's too)
#   FORMATS [loki-json loki-protobuf victorialogs elasticsearch splunk]
#   SIZES ["100:100000 1000:300000"] lines a request : target lines/s
#   IDLE_RATE [10]                   lines/s of the idle run (one request every 10 s)
#   PARALLELISM [2]  IN_FLIGHT [8]  JAVA_OPTS [-Xmx1g]  OUT [target/push-bench]
#   TICK [5ms]                       schedule.tick: the least time between two wake-ups of a source
# Needs a package build first (mvn -B -ntp -q -DskipTests package): the discard server's class
# comes from jobs/target/test-classes.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
jar="${JAR:-$root/jobs/target/logbench.jar}"
server_jar="${SERVER_JAR:-$root/jobs/target/logbench.jar}"
test_classes="${TEST_CLASSES:-$root/jobs/target/test-classes}"
duration="${DURATION:-60}"
formats="${FORMATS:-loki-json loki-protobuf victorialogs elasticsearch splunk}"
sizes="${SIZES:-100:100000 1000:300000}"
idle_rate="${IDLE_RATE:-10}"
parallelism="${PARALLELISM:-2}"
in_flight="${IN_FLIGHT:-8}"
tick="${TICK:-5ms}"
java_opts="${JAVA_OPTS:--Xmx1g}"
out="${OUT:-$root/target/push-bench}"
mkdir -p "$out"

for f in "$jar" "$server_jar" "$test_classes/io/logbench/bench/DiscardHttpServer.class"; do
  [[ -e "$f" ]] || { echo "push.sh: $f is missing; build first: mvn -B -ntp -q -DskipTests package" >&2; exit 2; }
done

rm -f "$out/port"
java -Xmx256m -cp "$test_classes:$server_jar" io.logbench.bench.DiscardHttpServer "$out/port" "$out/rates" \
  2> "$out/server.log" &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 100); do [[ -s "$out/port" ]] && break; sleep 0.1; done
[[ -s "$out/port" ]] || { echo "push.sh: the discard server did not start; see $out/server.log" >&2; exit 1; }
url="http://127.0.0.1:$(cat "$out/port")"
export PUSH_BENCH_HEC_TOKEN=bench-token

backend_block() { # format -> the backends block of the run file
  case "$1" in
    loki-json) printf '  - kind: loki\n    format: json\n' ;;
    loki-protobuf) printf '  - kind: loki\n    format: protobuf\n' ;;
    victorialogs) printf '  - kind: victorialogs\n' ;;
    elasticsearch) printf '  - kind: elasticsearch\n' ;;
    splunk) printf '  - kind: splunk\n    token_env: PUSH_BENCH_HEC_TOKEN\n' ;;
    *) echo "push.sh: unknown format '$1'; expected loki-json, loki-protobuf, victorialogs, elasticsearch or splunk" >&2; exit 2 ;;
  esac
  printf '    name: push\n    url: %s\n    delivery: load-test\n    in_flight: %s\n    timeout: 10s\n' "$url" "$in_flight"
  # the benchmark measures cost, not the backend: no abort on a slow first request of a cold JVM
  printf '    thresholds:\n      failed_rate: 0.5\n      p95: 60s\n      delay: 0s\n'
}

run_file() { # name format lines-a-request rate -> path of the run file
  local file="$out/$1.yaml"
  {
    printf 'name: %s\ndataset:\n  kind: app-json\n  seed: 0\n  streams: 20\n' "$1"
    printf 'schedule:\n  kind: constant\n  rate: %s\n  duration: %ss\n  tick: %s\n' "$4" "$duration" "$tick"
    printf 'timestamps: now\nbatch:\n  lines: %s\nwindow: 1m\nzone: UTC\nparallelism: %s\n' "$3" "$parallelism"
    # the discard server cannot count: no visibility polls (they would be requests of their own,
    # failing, and the run would wait visibility.timeout for its last line at the end)
    printf 'visibility:\n  sample: 0\nbackends:\n'
    backend_block "$2"
  } > "$file"
  echo "$file"
}

measure() { # name run-file -> one JSON line of figures in $out/<name>.json
  python3 "$root/deploy/bench/push_measure.py" --name "$1" --jar "$jar" --run-file "$2" \
    --run-dir "$out/runs/$1" --duration "$duration" --java-opts="$java_opts" --out "$out/$1.json" --rates "$out/rates"
}

echo "push.sh: discard server at $url; jar $jar; $duration s a run"
measure idle "$(run_file idle victorialogs 100 "$idle_rate")"
for size in $sizes; do
  lines="${size%%:*}"
  rate="${size##*:}"
  for format in $formats; do
    name="$format-$lines"
    measure "$name" "$(run_file "$name" "$format" "$lines" "$rate")"
  done
done
python3 "$root/deploy/bench/push_measure.py" --table "$out" --idle "$out/idle.json"
