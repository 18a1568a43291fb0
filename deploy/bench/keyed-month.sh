#!/usr/bin/env bash
# Runs KeyedMonthBench: the whole of nginx-month counted by status per day, cold, then warm on one
# and on two threads, in one JVM.
# Builds offline (-o): run a normal build once first so ~/.m2 holds every dependency.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cp_file="$root/jobs/target/jmh-classpath.txt"

mvn -B -q -o -f "$root/pom.xml" -pl jobs -am test-compile dependency:build-classpath \
  -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=test

exec java -Xms1g -Xmx1g \
  -cp "$root/jobs/target/test-classes:$root/jobs/target/classes:$(cat "$cp_file")" \
  io.logbench.bench.KeyedMonthBench "$@"
