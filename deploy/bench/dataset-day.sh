#!/usr/bin/env bash
# Times the `dataset` command over one day of seed 004 (May 1, 32,174,937 lines) in each mode and
# prints CPU seconds per line (user + sys of the whole process, as for the seed script), wall time
# and throughput. With --script, also runs the seed 004 script over the same day the same way
# (needs python3 with numpy and pandas; about 2 minutes).
#
#   deploy/bench/dataset-day.sh [--script] [--day 2021-05-01] [--parallelism 2] [--out DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
day=2021-05-01
parallelism=2
out=$(mktemp -d)
script=no
while [ $# -gt 0 ]; do
  case "$1" in
    --script) script=yes ;;
    --day) day=$2; shift ;;
    --parallelism) parallelism=$2; shift ;;
    --out) out=$2; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
jar=jobs/target/logbench.jar
[ -f "$jar" ] || mvn -B -q -ntp -DskipTests package
next=$(date -d "$day + 1 day" +%F)
first_minute=$(( ( $(date -d "$day" +%s) - $(date -d 2021-05-01 +%s) ) / 60 ))

measure() { # label, command...
  local label=$1; shift
  local t; t=$(mktemp)
  /usr/bin/time -f "%e %U %S %M" -o "$t" "$@" > /dev/null 2>&1
  read -r wall user sys rss < "$t"
  local lines; lines=$(wc -l < "$out/$day.log"); lines=$((lines + 1))
  local bytes; bytes=$(stat -c %s "$out/$day.log")
  awk -v l="$label" -v n="$lines" -v b="$bytes" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" 'BEGIN {
    cpu = u + s;
    printf "%-34s %12d lines %6.2f GB  wall %6.1f s  cpu %6.1f s (user %.1f, sys %.1f)  %8.0f lines/cpu-s  %6.0f ns cpu/line  %8.0f lines/s wall  rss %d MB\n",
      l, n, b / 1e9, w, cpu, u, s, n / cpu, cpu * 1e9 / n, n / w, r / 1024 }'
  sha256sum "$out/$day.log" | cut -c1-16
  rm -f "$t"
}

for mode in python-compatible fast; do
  cfg=$(mktemp --suffix=.yaml)
  printf 'name: bench\ndataset:\n  kind: nginx-month\n  mode: %s\n' "$mode" > "$cfg"
  rm -rf "$out"; mkdir -p "$out"
  measure "logbench $mode (p=$parallelism)" java -jar "$jar" dataset "$cfg" --out "$out" \
    --from "${day}T00:00:00-03:00" --until "${next}T00:00:00-03:00" --parallelism "$parallelism"
  rm -f "$cfg"
done
if [ "$script" = yes ]; then
  rm -rf "$out"; mkdir -p "$out"
  TZ=America/Sao_Paulo measure "seed 004 script (python3)" /usr/bin/python3 \
    jobs/src/test/resources/seed004/seed004_reference.py write "$out" "$first_minute" $((first_minute + 1440))
fi
rm -rf "$out"
