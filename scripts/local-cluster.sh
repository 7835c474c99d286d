#!/usr/bin/env bash
# A three-node cluster of the sample app on this machine, on its embedded test database:
# builds once, starts a standalone embedded database and nodes on ports 8081-8083 (loopback only),
# and stops everything it started (by PID) on Ctrl-C: the nodes first, so that they can leave gracefully
# (release their leases, remove their node documents) while the database is still up, then the database.
set -euo pipefail
cd "$(dirname "$0")/.."

DB_PORT="${DB_PORT:-27017}"
PORTS=(8081 8082 8083)
LOGS=membership-sample-app/target/local-cluster
NODE_STOP_SECONDS=40 # the nodes' graceful leave, then kill -9
DB_STOP_SECONDS=10
db_pid=""
node_pids=()

# Waits until none of the given PIDs runs any more, at most $1 seconds; then kill -9 what is left.
wait_or_kill() {
  local seconds=$1 i pid alive
  shift
  for ((i = 0; i < seconds * 5; i++)); do
    any_running "$@" || return 0
    sleep 0.2
  done
  alive=()
  for pid in "$@"; do
    if kill -0 "$pid" 2>/dev/null; then alive+=("$pid"); fi
  done
  if ((${#alive[@]})); then
    echo "Still running after ${seconds}s, killing: ${alive[*]}"
    kill -9 "${alive[@]}" 2>/dev/null
  fi
  return 0
}

# Whether any of the given PIDs still runs.
any_running() {
  local pid
  for pid in "$@"; do
    if kill -0 "$pid" 2>/dev/null; then return 0; fi
  done
  return 1
}

# On INT, TERM and EXIT alike: the nodes first, the database last, then exit (130 for INT, 143 for TERM, else the
# script's own status). Further INT/TERM while stopping are ignored: every wait here is bounded.
stop_all() {
  local status=$1
  trap - EXIT
  trap '' INT TERM
  set +e
  if ((${#node_pids[@]})); then
    echo
    echo "Stopping the nodes ${node_pids[*]} ..."
    kill -TERM "${node_pids[@]}" 2>/dev/null
    wait_or_kill "$NODE_STOP_SECONDS" "${node_pids[@]}"
  fi
  if [[ -n "$db_pid" ]]; then
    echo "Stopping the database $db_pid ..."
    kill -TERM "$db_pid" 2>/dev/null
    wait_or_kill "$DB_STOP_SECONDS" "$db_pid"
  fi
  echo "Stopped."
  exit "$status"
}
trap 'stop_all 130' INT
trap 'stop_all 143' TERM
trap 'stop_all $?' EXIT

echo "Building the sample app once ..."
./mvnw -q -B -pl membership-sample-app -am package -DskipTests
JAR=$(ls membership-sample-app/target/membership-sample-app-*.jar | grep -v '\.original$' | head -n 1)
mkdir -p "$LOGS"

java -jar "$JAR" --sample.embedded-mongo.standalone=true --sample.embedded-mongo.port="$DB_PORT" \
  > "$LOGS/database.log" 2>&1 &
db_pid=$!
echo "Embedded database starting on 127.0.0.1:$DB_PORT (pid $db_pid, log $LOGS/database.log)"
for _ in $(seq 1 120); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$DB_PORT") 2>/dev/null; then break; fi
  sleep 0.5
done

# one operator's password for every node of this cluster (each node would make up its own otherwise)
OPERATOR_PASSWORD=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
for port in "${PORTS[@]}"; do
  # a node whose database port is taken joins the database running there
  java -jar "$JAR" --server.port="$port" --server.address=127.0.0.1 --sample.embedded-mongo.port="$DB_PORT" \
    --sample.operator.password="$OPERATOR_PASSWORD" > "$LOGS/node-$port.log" 2>&1 &
  node_pids+=($!)
  echo "Node starting on http://127.0.0.1:$port (pid $!, log $LOGS/node-$port.log)"
done

cat <<INFO

Watch the cluster:   http://127.0.0.1:8081/   (or 8082, 8083: each shows the cluster as that node sees it)
Cluster as JSON:     curl -s http://127.0.0.1:8081/actuator/cluster
Housekeeping runs:   curl -s http://127.0.0.1:8081/housekeeping/runs
Broadcast:           curl -s -X POST 'http://127.0.0.1:8081/cache/invalidate?key=k1'
                     curl -s http://127.0.0.1:8082/cache/events
Failover:            kill -9 <pid of the leader's node>   (or kill <pid> for a graceful hand-over)
Drain a node:        curl -s -u operator:$OPERATOR_PASSWORD -X POST -H 'Content-Type: application/json' \\
                       http://127.0.0.1:8081/actuator/cluster/drain   (the operator alone steers the cluster)
Tenant roll-up:      curl -s http://127.0.0.1:8081/tenants/runs   (8 partitions of group 'tenants')
Another node:        java -jar $JAR --server.port=8084 --server.address=127.0.0.1 --sample.embedded-mongo.port=$DB_PORT --sample.operator.password=$OPERATOR_PASSWORD

Below: the owner of each tenant partition (node:epoch), printed whenever it changes. Kill a node or start
another and watch partitions move. Press Ctrl-C to stop everything.
INFO

previous=""
# until Ctrl-C, or until nothing this script started runs any more
while any_running "$db_pid" "${node_pids[@]}"; do
  owners=""
  for port in "${PORTS[@]}" 8084 8085; do
    if owners=$(curl -sf --max-time 1 "http://127.0.0.1:$port/tenants/owners" 2>/dev/null); then break; fi
  done
  if [[ -n "$owners" && "$owners" != "$previous" ]]; then
    echo "$(date +%T) tenants: $owners"
    previous="$owners"
  fi
  # in the background, so that a signal is handled at once rather than after the sleep
  sleep 2 &
  wait $!
done
echo "The database and all the nodes this script started have exited."
exit 1
