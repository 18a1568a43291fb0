#!/usr/bin/env bash
# A Flink standalone session cluster on this machine without the Flink distribution: the
# JobManager and one TaskManager run from the Maven jars of jobs/ (Flink 2.2.1), every address
# bound to 127.0.0.1, and logbench jobs go in through Flink's own CLI (`flink run`).
#
#   deploy/flink-session/session.sh start DIR             conf, logs and pids under DIR; waits for the TaskManager
#   deploy/flink-session/session.sh run DIR ARGS...       flink run jobs/target/logbench-job.jar ARGS...
#   deploy/flink-session/session.sh stop DIR
#
# Environment: REST_PORT (default 8081), RPC_PORT (default 6123), SLOTS (default 2),
# FLINK_CLASSPATH (default: built with Maven from jobs/pom.xml).
# With the official distribution instead: bin/start-cluster.sh, then
#   bin/flink run jobs/target/logbench-job.jar dataset config/quickstart.yaml --out /shared/logdir
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cmd=${1:?usage: session.sh start|run|stop DIR [ARGS...]}
dir=${2:?usage: session.sh start|run|stop DIR [ARGS...]}
shift 2
mkdir -p "$dir/conf" "$dir/log"
dir="$(cd "$dir" && pwd)"

classpath() {
  if [ -n "${FLINK_CLASSPATH:-}" ]; then
    echo "$FLINK_CLASSPATH"
    return
  fi
  if [ ! -s "$dir/classpath.txt" ]; then
    mvn -B -q -f "$root/pom.xml" -pl jobs dependency:build-classpath \
      -Dmdep.outputFile="$dir/classpath.txt" -Dmdep.includeScope=runtime >&2
  fi
  cat "$dir/classpath.txt"
}

# Flink's own --add-opens/--add-exports list (env.java.opts.all of its default config)
JAVA_OPENS="--add-exports=java.base/sun.net.util=ALL-UNNAMED --add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED
--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED
--add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED
--add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
--add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.text=ALL-UNNAMED
--add-opens=java.base/java.time=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED
--add-opens=java.base/java.util.concurrent=ALL-UNNAMED --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED
--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED"

resource_params() { # GET_JM_RESOURCE_PARAMS | GET_TM_RESOURCE_PARAMS -> two lines: JVM flags, dynamic properties
  java -cp "$(classpath)" org.apache.flink.runtime.util.bash.BashJavaUtils "$1" --configDir "$dir/conf" 2>/dev/null \
    | sed -n 's/^BASH_JAVA_UTILS_EXEC_RESULT://p' | tail -n 2
}

rest="http://127.0.0.1:${REST_PORT:-8081}"

case "$cmd" in
  start)
    cat > "$dir/conf/config.yaml" <<YAML
jobmanager.rpc.address: 127.0.0.1
jobmanager.rpc.port: ${RPC_PORT:-6123}
jobmanager.bind-host: 127.0.0.1
taskmanager.bind-host: 127.0.0.1
taskmanager.host: 127.0.0.1
rest.address: 127.0.0.1
rest.bind-address: 127.0.0.1
rest.port: ${REST_PORT:-8081}
taskmanager.numberOfTaskSlots: ${SLOTS:-2}
parallelism.default: 2
jobmanager.memory.process.size: 1024m
taskmanager.memory.process.size: 1536m
jobmanager.execution.failover-strategy: region
YAML
    cp "$root/jobs/src/main/resources/log4j2.properties" "$dir/conf/log4j-cli.properties"
    cp "$root/jobs/src/main/resources/log4j2.properties" "$dir/conf/log4j.properties"
    cp_="$(classpath)"
    mapfile -t jm < <(resource_params GET_JM_RESOURCE_PARAMS)
    mapfile -t tm < <(resource_params GET_TM_RESOURCE_PARAMS)
    # shellcheck disable=SC2086
    nohup java ${jm[0]} $JAVA_OPENS -Dlog4j.configurationFile="$dir/conf/log4j.properties" -cp "$cp_" \
      org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint --configDir "$dir/conf" ${jm[1]} \
      > "$dir/log/jobmanager.out" 2>&1 &
    echo $! > "$dir/jobmanager.pid"
    # shellcheck disable=SC2086
    nohup java ${tm[0]} $JAVA_OPENS -Dlog4j.configurationFile="$dir/conf/log4j.properties" -cp "$cp_" \
      org.apache.flink.runtime.taskexecutor.TaskManagerRunner --configDir "$dir/conf" ${tm[1]} \
      > "$dir/log/taskmanager.out" 2>&1 &
    echo $! > "$dir/taskmanager.pid"
    for _ in $(seq 1 180); do # a TaskManager registers in 20 to 30 s on 2 busy cores
      if curl -sf "$rest/taskmanagers" 2>/dev/null | grep -q '"id"'; then
        echo "session cluster up: $rest (logs in $dir/log)"
        exit 0
      fi
      for p in jobmanager taskmanager; do
        kill -0 "$(cat "$dir/$p.pid")" 2>/dev/null || { echo "the $p exited; see $dir/log/$p.out" >&2; tail -20 "$dir/log/$p.out" >&2; exit 1; }
      done
      sleep 1
    done
    echo "no TaskManager registered at $rest within 180 s; see $dir/log" >&2
    exit 1
    ;;
  run)
    jar="$root/jobs/target/logbench-job.jar"
    [ -f "$jar" ] || { echo "$jar is missing: run mvn -DskipTests package first" >&2; exit 1; }
    FLINK_CONF_DIR="$dir/conf" exec java $JAVA_OPENS -Dlog4j.configurationFile="$dir/conf/log4j-cli.properties" \
      -cp "$(classpath)" org.apache.flink.client.cli.CliFrontend run "$jar" "$@"
    ;;
  stop)
    for p in taskmanager jobmanager; do
      if [ -f "$dir/$p.pid" ]; then
        kill "$(cat "$dir/$p.pid")" 2>/dev/null || true
        rm -f "$dir/$p.pid"
      fi
    done
    ;;
  *)
    echo "usage: session.sh start|run|stop DIR [ARGS...]" >&2
    exit 2
    ;;
esac
