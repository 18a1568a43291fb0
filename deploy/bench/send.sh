#!/usr/bin/env bash
# Runs SendBench: each backend format's sender encodes and sends 100-line app-json batches to a
# loopback server that discards them; arguments: [batches per format, default 2000] [in flight,
# default 8] [lines a batch, default 100], e.g. deploy/bench/send.sh 2000 8
# Builds offline (-o): run a normal build once first so ~/.m2 holds every dependency.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cp_file="$root/jobs/target/jmh-classpath.txt"

mvn -B -q -o -f "$root/pom.xml" -pl jobs -am test-compile dependency:build-classpath \
  -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=test

exec java -Xms1g -Xmx1g \
  -cp "$root/jobs/target/test-classes:$root/jobs/target/classes:$(cat "$cp_file")" \
  io.logbench.bench.SendBench "$@"
