#!/usr/bin/env bash
# Runs PublishBench: `publish` of a run file's dataset (default config/quickstart.yaml, the
# quickstart hour) to a real Kafka broker started in the same JVM, then a replay of the topic as
# fast as it goes to a discard backend; arguments: [CONFIG] [partitions, default 4]
# [parallelism, default 2] [rounds, default 2], e.g. deploy/bench/publish.sh config/quickstart.yaml 4 2 2
# Builds offline (-o): run a normal build once first so ~/.m2 holds every dependency.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cp_file="$root/jobs/target/jmh-classpath.txt"

mvn -B -q -o -f "$root/pom.xml" -pl jobs -am test-compile dependency:build-classpath \
  -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=test

cd "$root"
exec java -Xms2g -Xmx2g \
  -cp "$root/jobs/target/test-classes:$root/jobs/target/classes:$(cat "$cp_file")" \
  io.logbench.bench.PublishBench "$@"
