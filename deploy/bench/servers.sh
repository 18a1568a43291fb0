# Real servers and run files for the bench scripts, sourced by them (not run): each server starts on a free
# 127.0.0.1 port with its data in a directory of its own, waits until it says it is ready, and is
# stopped by stop_servers (the scripts set a trap). Binaries come from LOGBENCH_VICTORIALOGS_BIN
# and LOGBENCH_LOKI_BIN only; a missing one stops the script with a sentence saying which.
#
#   start_victorialogs DIR   -> sets VL_URL
#   start_loki DIR           -> sets LOKI_URL (auth off, May 2021 lines taken, limits raised for load)
#   need_bin VAR WHAT        -> exits 2 unless $VAR names an executable
#   app_run_file FILE NAME RATE SECONDS LINES EXTRA BACKENDS -> writes a run file of seed 000's app
#     JSON lines (20 streams, stamped with their send time) at RATE lines/s for SECONDS (empty: no
#     duration, as a canary's run file has none), LINES a request, logbench's default parallelism
#     (auto: one subtask per 1,000 requests a second; PARALLELISM=N writes N), with the YAML
#     lines EXTRA (may be empty) and the backends list BACKENDS

server_pids=()

need_bin() { # variable what
  local v="${!1:-}"
  if [[ -z "$v" || ! -x "$v" ]]; then
    echo "$(basename "$0"): $1 must name $2 (it is '${v}'); set it, e.g. from the workplace's bundle of server binaries." >&2
    exit 2
  fi
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

wait_for() { # url expected-body-substring seconds what
  local i
  for i in $(seq $(( $3 * 5 ))); do
    if curl -fsS "$1" 2>/dev/null | grep -q "$2"; then return 0; fi
    sleep 0.2
  done
  echo "$(basename "$0"): $4 did not become ready at $1 within $3 s." >&2
  return 1
}

start_victorialogs() { # dir
  need_bin LOGBENCH_VICTORIALOGS_BIN "a VictoriaLogs single-node binary"
  local dir="$1" port
  port="$(free_port)"
  mkdir -p "$dir"
  # -retentionPeriod=100y keeps lines stamped long ago (the default, 7d, drops May 2021 silently)
  "$LOGBENCH_VICTORIALOGS_BIN" -httpListenAddr="127.0.0.1:$port" -storageDataPath="$dir/data" \
    -retentionPeriod=100y > "$dir/log" 2>&1 &
  server_pids+=($!)
  VL_URL="http://127.0.0.1:$port"
  wait_for "$VL_URL/health" OK 60 "VictoriaLogs"
}

start_loki() { # dir
  need_bin LOGBENCH_LOKI_BIN "a Grafana Loki binary (3.x, -target=all)"
  local dir="$1" http grpc
  http="$(free_port)"
  grpc="$(free_port)"
  mkdir -p "$dir/data"
  # Loki's defaults but for: loopback only, no auth, storage under dir, old lines taken and queried
  # (reject_old_samples, query_store_max_look_back_period), ingestion limits far above a benchmark's
  cat > "$dir/config.yaml" <<EOF
target: all
auth_enabled: false
server:
  http_listen_address: 127.0.0.1
  http_listen_port: $http
  grpc_listen_address: 127.0.0.1
  grpc_listen_port: $grpc
  log_level: warn
  grpc_server_max_recv_msg_size: 104857600
  grpc_server_max_send_msg_size: 104857600
common:
  path_prefix: $dir/data
  instance_addr: 127.0.0.1
  replication_factor: 1
  ring:
    instance_addr: 127.0.0.1
    kvstore:
      store: inmemory
  storage:
    filesystem:
      chunks_directory: $dir/data/chunks
      rules_directory: $dir/data/rules
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
  query_store_max_look_back_period: -1
query_range:
  cache_results: false
limits_config:
  reject_old_samples: false
  allow_structured_metadata: true
  ingestion_rate_mb: 1024
  ingestion_burst_size_mb: 1024
  per_stream_rate_limit: 512MB
  per_stream_rate_limit_burst: 1024MB
  max_global_streams_per_user: 100000
  max_query_lookback: 0s
compactor:
  working_directory: $dir/data/compactor
analytics:
  reporting_enabled: false
EOF
  "$LOGBENCH_LOKI_BIN" -config.file="$dir/config.yaml" > "$dir/log" 2>&1 &
  server_pids+=($!)
  LOKI_URL="http://127.0.0.1:$http"
  wait_for "$LOKI_URL/ready" ready 120 "Loki"
}

stop_servers() {
  local p
  for p in "${server_pids[@]}"; do
    kill "$p" 2>/dev/null || true
  done
  for p in "${server_pids[@]}"; do
    wait "$p" 2>/dev/null || true
  done
  server_pids=()
}

app_run_file() { # file name rate seconds lines extra backends
  cat > "$1" <<EOF
name: $2
dataset: {kind: app-json, seed: 0, streams: 20}
schedule: {kind: constant, rate: $3${4:+, duration: ${4}s}}
timestamps: now
batch: {lines: $5}
window: 1m
zone: UTC
parallelism: ${PARALLELISM:-auto}
$6
backends:
$7
EOF
}
