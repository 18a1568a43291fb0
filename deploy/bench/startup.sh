#!/usr/bin/env bash
# The fixed cost of a run: `java -jar logbench.jar generate` of one 100-line batch to the discard
# backend (no I/O), from `java -jar` to exit, RUNS times, with the class-data archive in a fresh
# folder of its own (so the first run makes it and the others use it), and once more with
# -Dlogbench.launcher=off (one JVM, no archive, Java's default JIT) for comparison. Prints the
# CPU-s (user + sys of the whole process tree), wall time, load average and the busiest threads.
#
# With JAVAS, several Javas side by side: each label's first run makes its archive (on Java 25, an
# ahead-of-time cache) in a folder of its own, then the RUNS runs alternate between the labels,
# so a changing load on a shared machine falls on each alike.
#
# Environment: JAR [jobs/target/logbench.jar]  RUNS [4]  OUT [target/startup-bench]
#   JAVAS ["java:java"]: label:path-of-java pairs, space-separated (e.g.
#     "j17:/usr/bin/java j25:/usr/lib/jvm/temurin-25-jdk-amd64/bin/java")
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
jar="${JAR:-$root/jobs/target/logbench.jar}"
runs="${RUNS:-4}"
out="${OUT:-$root/target/startup-bench}"
javas="${JAVAS:-java:java}"
[[ -f "$jar" ]] || { echo "startup.sh: the jar $jar is missing; build first: mvn -B -ntp -q -DskipTests package" >&2; exit 2; }
mkdir -p "$out"
# shellcheck source=servers.sh
source "$root/deploy/bench/servers.sh"
app_run_file "$out/short.yaml" short 10 10 100 "" "  - kind: discard"

one() { # label cds-folder java java-options...
  local label="$1" cds="$2" java="$3"; shift 3
  rm -rf "$out/run"
  LOGBENCH_CDS_DIR="$cds" python3 "$root/deploy/bench/measure.py" --label "$label" --out "$out/$label.json" -- \
    "$java" "$@" -jar "$jar" generate "$out/short.yaml" --run-dir "$out/run" --quiet > "$out/$label.log" 2>&1 || true
  python3 - "$out/$label.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
top = ", ".join(f"{k} {v}" for k, v in list(m["threads_cpu_s"].items())[:5])
print(f"{m['label']}: exit {m['exit']}, {m['cpu_s']} CPU-s ({m['cpu_user_s']} user + {m['cpu_sys_s']} sys), "
      f"wall {m['wall_s']} s, load {m['load_avg_min_max'][0]}-{m['load_avg_min_max'][1]}; threads: {top}")
PY
}

labelled=true
if [[ "$javas" == "java:java" ]]; then labelled=false; fi
for j in $javas; do
  label="${j%%:*}" java="${j#*:}"
  prefix=""; $labelled && prefix="$label-"
  rm -rf "$out/cds-$label"
  one "${prefix}one-jvm" "$out/cds-$label" "$java" -Dlogbench.launcher=off
  one "${prefix}launcher-1" "$out/cds-$label" "$java"
done
for i in $(seq 2 "$runs"); do
  for j in $javas; do
    label="${j%%:*}" java="${j#*:}"
    prefix=""; $labelled && prefix="$label-"
    one "${prefix}launcher-$i" "$out/cds-$label" "$java"
  done
done
