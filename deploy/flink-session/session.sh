#!/usr/bin/env bash
# A Flink standalone session cluster on this machine without the Flink distribution: a JobManager
# and any number of TaskManagers, each its own JVM, run from Flink's jars on Maven Central (the
# versions of the root pom, listed in deploy/flink-session/pom.xml), every address bound to
# 127.0.0.1; logbench jobs go in through Flink's own CLI (`flink run`).
#
#   session.sh start DIR          conf, logs and pids under DIR; one TaskManager; prints the web UI
#   session.sh add-tm DIR         one more TaskManager (its own log, pid and ephemeral ports)
#   session.sh status DIR         JobManager, TaskManagers, slots, jobs and the web UI address
#   session.sh run DIR [FLINK_RUN_OPTIONS... --] ARGS...
#                                 flink run [options] jobs/target/logbench-job.jar ARGS... (the jar is
#                                 built if missing; e.g. run DIR -s SAVEPOINT -- generate config/x.yaml)
#   session.sh stop DIR           stops every TaskManager started from DIR, then the JobManager
#
# Environment, read by start: REST_PORT (default 8081), RPC_PORT (6123), SLOTS (slots per
# TaskManager, 2), PARALLELISM (default parallelism, 2), TM_MEMORY (1536m), JM_MEMORY (1024m),
# FLINK_PROPERTIES (more config.yaml lines, "key: value" each, as in Flink's official image).
# Every command: FLINK_CLASSPATH (default: built once into DIR/classpath.txt by Maven from
# deploy/flink-session/pom.xml; nothing is installed into ~/.m2 but Maven Central's jars).
# With the official distribution instead: bin/start-cluster.sh, then
#   bin/flink run jobs/target/logbench-job.jar dataset config/quickstart.yaml --out /shared/logdir
# (docs/cluster.md).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
usage="usage: session.sh start|add-tm|status|run|stop DIR [ARGS...]"
cmd=${1:?$usage}
dir=${2:?$usage}
shift 2
case "$cmd" in
  start) mkdir -p "$dir/conf" "$dir/log" "$dir/tmp" "$dir/plugins" ;;
  add-tm|status|run|stop)
    [ -f "$dir/conf/config.yaml" ] || { echo "$dir has no session cluster: run session.sh start $dir first" >&2; exit 2; } ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
dir="$(cd "$dir" && pwd)"
jar="$root/jobs/target/logbench-job.jar"

classpath() {
  if [ -n "${FLINK_CLASSPATH:-}" ]; then
    echo "$FLINK_CLASSPATH"
    return
  fi
  if [ ! -s "$dir/classpath.txt" ]; then
    # A pom of its own, parent found by relativePath: the reactor's modules are not needed, so
    # nothing has to be installed, and the cluster holds Flink's jars only, as a real one does.
    mvn -B -ntp -q -f "$root/deploy/flink-session/pom.xml" dependency:build-classpath \
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

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# The REST port the cluster in DIR was started with (start wrote it into its config).
rest="http://127.0.0.1:$(sed -n 's/^rest\.port: *//p' "$dir/conf/config.yaml" 2>/dev/null || true)"

# Registered TaskManager ids, one a line, from the REST API (empty when the JobManager is down).
registered() {
  curl -sf "$rest/taskmanagers" 2>/dev/null | grep -o '"id":"[^"]*"' | sed 's/"id":"\(.*\)"/\1/' || true
}

# Starts TaskManager N (resource id tm-N) and waits until the JobManager lists it.
start_tm() {
  local n=$1 id="tm-$1"
  local -a tm
  mapfile -t tm < <(resource_params GET_TM_RESOURCE_PARAMS)
  [ "${#tm[@]}" -eq 2 ] || { echo "Flink's BashJavaUtils gave no TaskManager memory settings for $dir/conf" >&2; exit 1; }
  # shellcheck disable=SC2086
  FLINK_PLUGINS_DIR="$dir/plugins" nohup java ${tm[0]} $JAVA_OPENS -Dlog.file="$dir/log/taskmanager-$n.log" \
    -Dlog4j.configurationFile="$dir/conf/log4j.properties" -cp "$(classpath)" \
    org.apache.flink.runtime.taskexecutor.TaskManagerRunner --configDir "$dir/conf" ${tm[1]} \
    -D "taskmanager.resource-id=$id" < /dev/null > "$dir/log/taskmanager-$n.out" 2>&1 &
  echo $! > "$dir/taskmanager-$n.pid"
  for _ in $(seq 1 180); do # a TaskManager registers in 20 to 30 s on 2 busy cores
    if registered | grep -qx "$id"; then
      echo "TaskManager $id registered (pid $(cat "$dir/taskmanager-$n.pid"), log $dir/log/taskmanager-$n.log)"
      return 0
    fi
    alive "$dir/taskmanager-$n.pid" || {
      echo "TaskManager $id exited; see $dir/log/taskmanager-$n.out" >&2
      tail -20 "$dir/log/taskmanager-$n.out" >&2
      exit 1
    }
    alive "$dir/jobmanager.pid" || { echo "the JobManager exited; see $dir/log/jobmanager.out" >&2; exit 1; }
    sleep 1
  done
  echo "TaskManager $id did not register at $rest within 180 s; see $dir/log/taskmanager-$n.out" >&2
  exit 1
}

# The next TaskManager number, under a lock so two add-tm at once do not take the same one.
next_tm() {
  local n=1
  while [ -e "$dir/taskmanager-$n.pid" ]; do n=$((n + 1)); done
  : > "$dir/taskmanager-$n.pid"
  echo "$n"
}

json_number() { # KEY < JSON -> the first number under KEY
  grep -o "\"$1\":[0-9]*" | head -1 | cut -d: -f2
}

case "$cmd" in
  start)
    if alive "$dir/jobmanager.pid"; then
      echo "a session cluster already runs from $dir (JobManager pid $(cat "$dir/jobmanager.pid")); stop it first" >&2
      exit 1
    fi
    rm -f "$dir"/taskmanager-*.pid
    rest="http://127.0.0.1:${REST_PORT:-8081}"
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
parallelism.default: ${PARALLELISM:-2}
jobmanager.memory.process.size: ${JM_MEMORY:-1024m}
taskmanager.memory.process.size: ${TM_MEMORY:-1536m}
jobmanager.execution.failover-strategy: region
io.tmp.dirs: $dir/tmp
web.tmpdir: $dir/tmp
YAML
    # More settings, one "key: value" a line, as the official image's FLINK_PROPERTIES.
    if [ -n "${FLINK_PROPERTIES:-}" ]; then printf '%s\n' "$FLINK_PROPERTIES" >> "$dir/conf/config.yaml"; fi
    # The cluster logs at INFO into log/*.log (the web UI shows these files); the CLI keeps the
    # job's own quiet configuration.
    cat > "$dir/conf/log4j.properties" <<'PROPS'
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
appender.file.name = file
appender.file.type = File
appender.file.fileName = ${sys:log.file}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{yyyy-MM-dd HH:mm:ss,SSS} %-5p %-60c %x - %m%n
PROPS
    cp "$root/jobs/src/main/resources/log4j2.properties" "$dir/conf/log4j-cli.properties"
    # The distribution's CLI finds its YARN command line in flink-dist; these jars have none, and
    # the client says so with a stack trace on every run.
    printf '%s\n' 'logger.cli.name = org.apache.flink.client.cli.CliFrontend' 'logger.cli.level = ERROR' \
      >> "$dir/conf/log4j-cli.properties"
    if curl -s -o /dev/null "$rest/config" 2>/dev/null; then
      echo "$rest already answers: another Flink cluster uses REST_PORT ${REST_PORT:-8081}" >&2
      exit 1
    fi
    classpath > /dev/null
    mapfile -t jm < <(resource_params GET_JM_RESOURCE_PARAMS)
    [ "${#jm[@]}" -eq 2 ] || { echo "Flink's BashJavaUtils gave no JobManager memory settings for $dir/conf" >&2; exit 1; }
    # shellcheck disable=SC2086
    FLINK_PLUGINS_DIR="$dir/plugins" nohup java ${jm[0]} $JAVA_OPENS -Dlog.file="$dir/log/jobmanager.log" \
      -Dlog4j.configurationFile="$dir/conf/log4j.properties" -cp "$(classpath)" \
      org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint --configDir "$dir/conf" ${jm[1]} \
      < /dev/null > "$dir/log/jobmanager.out" 2>&1 &
    echo $! > "$dir/jobmanager.pid"
    start_tm "$(next_tm)"
    echo "session cluster up; web UI and REST API: $rest (logs in $dir/log)"
    ;;
  add-tm)
    alive "$dir/jobmanager.pid" || { echo "no JobManager runs from $dir: run session.sh start $dir first" >&2; exit 1; }
    exec 9> "$dir/tm.lock"
    flock 9
    n=$(next_tm)
    exec 9>&-
    start_tm "$n"
    echo "TaskManagers registered: $(registered | grep -c .); web UI: $rest"
    ;;
  status)
    if ! alive "$dir/jobmanager.pid"; then
      echo "JobManager: not running (no live pid in $dir/jobmanager.pid)"
      exit 3
    fi
    overview=$(curl -sf "$rest/overview" 2>/dev/null || true)
    if [ -z "$overview" ]; then
      echo "JobManager: pid $(cat "$dir/jobmanager.pid"), REST API not answering yet at $rest"
      exit 3
    fi
    echo "JobManager: up (pid $(cat "$dir/jobmanager.pid")), Flink $(grep -o '"flink-version":"[^"]*"' <<<"$overview" | cut -d'"' -f4)"
    echo "web UI and REST API: $rest"
    echo "TaskManagers: $(json_number taskmanagers <<<"$overview") registered;" \
      "slots: $(json_number slots-total <<<"$overview") total, $(json_number slots-available <<<"$overview") free;" \
      "jobs: $(json_number jobs-running <<<"$overview") running, $(json_number jobs-finished <<<"$overview") finished"
    ids=$(registered)
    for pidfile in "$dir"/taskmanager-*.pid; do
      [ -e "$pidfile" ] || continue
      n=${pidfile##*/taskmanager-}; n=${n%.pid}
      if ! alive "$pidfile"; then
        state="exited (see $dir/log/taskmanager-$n.out)"
      elif grep -qx "tm-$n" <<<"$ids"; then
        info=$(curl -sf "$rest/taskmanagers/tm-$n" 2>/dev/null || true)
        state="up (pid $(cat "$pidfile")), slots $(json_number slotsNumber <<<"$info"), free $(json_number freeSlots <<<"$info")"
      else
        state="starting (pid $(cat "$pidfile")), not registered yet"
      fi
      echo "  tm-$n: $state; log $dir/log/taskmanager-$n.log"
    done
    ;;
  run)
    if [ ! -f "$jar" ]; then
      echo "$jar is missing: building it (mvn -DskipTests package)" >&2
      mvn -B -ntp -q -f "$root/pom.xml" -pl jobs -am -DskipTests package >&2
    fi
    # Options for flink run itself (-p 4, -d, -s SAVEPOINT...) come first and end with --.
    opts=()
    if [ "${1:-}" != "${1#-}" ]; then
      while [ $# -gt 0 ] && [ "$1" != "--" ]; do opts+=("$1"); shift; done
      [ $# -gt 0 ] || { echo "the flink run options ${opts[*]} must end with -- before the logbench command" >&2; exit 2; }
      shift
    fi
    # Flink's client ends with exit code 1 whatever the program's reason; logbench's main names its
    # own exit code (1: failed or found a loss, 2: wrong command line or run file) in the exception
    # the client prints on stderr, and this script exits with that code. stdout stays untouched so
    # progress blocks still refresh on a terminal.
    errlog=$(mktemp)
    trap 'rm -f "$errlog"' EXIT
    cp=$(classpath)
    set +e
    # stdout to the terminal (fd 3), stderr through tee into errlog and back to stderr
    {
      # shellcheck disable=SC2086
      FLINK_CONF_DIR="$dir/conf" FLINK_PLUGINS_DIR="$dir/plugins" java $JAVA_OPENS \
        -Dlog4j.configurationFile="$dir/conf/log4j-cli.properties" -cp "$cp" \
        org.apache.flink.client.cli.CliFrontend run "${opts[@]}" "$jar" "$@" 2>&1 1>&3 3>&- \
        | tee "$errlog" >&2
      rc=${PIPESTATUS[0]}
    } 3>&1
    set -e
    if [ "$rc" -ne 0 ]; then
      code=$(grep -o -m1 'ended with exit code [0-9]*' "$errlog" | grep -o '[0-9]*$' || true)
      [ -n "$code" ] && rc=$code
    fi
    exit "$rc"
    ;;
  stop)
    pids=()
    for pidfile in "$dir"/taskmanager-*.pid "$dir/jobmanager.pid"; do
      if alive "$pidfile"; then
        pids+=("$(cat "$pidfile")")
        kill "$(cat "$pidfile")" 2>/dev/null || true
      fi
      rm -f "$pidfile"
    done
    # Wait until they are gone, so the ports are free for the next start.
    for pid in "${pids[@]}"; do
      for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      if kill -0 "$pid" 2>/dev/null; then
        echo "pid $pid did not stop within 30 s; killing it" >&2
        kill -9 "$pid" 2>/dev/null || true
      fi
    done
    echo "stopped ${#pids[@]} process(es) of the session cluster in $dir"
    ;;
esac
