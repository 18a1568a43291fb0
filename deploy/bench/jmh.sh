#!/usr/bin/env bash
# Runs the JMH benchmarks in jobs/src/test/java/io/logbench/bench; arguments go to JMH as they are,
# e.g. deploy/bench/jmh.sh LineGenerationBenchmark -f 1 -wi 2 -i 3 -w 2s -r 2s
# Builds offline (-o): run a normal build once first so ~/.m2 holds every dependency.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cp_file="$root/jobs/target/jmh-classpath.txt"

# -am builds the schemas module in the same reactor, so nothing needs installing in ~/.m2; jobs
# comes last in the reactor, so its classpath is the one left in the file.
mvn -B -q -o -f "$root/pom.xml" -pl jobs -am test-compile dependency:build-classpath \
  -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=test

exec java -cp "$root/jobs/target/test-classes:$root/jobs/target/classes:$(cat "$cp_file")" \
  org.openjdk.jmh.Main "$@"
