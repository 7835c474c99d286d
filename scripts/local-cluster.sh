#!/usr/bin/env bash
# A three-node cluster of the sample app on this machine, on its embedded test database:
# builds once, starts a standalone embedded database and nodes on ports 8081-8083 (loopback only),
# and stops everything it started (by PID) on Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."

DB_PORT="${DB_PORT:-27017}"
PORTS=(8081 8082 8083)
LOGS=membership-sample-app/target/local-cluster
pids=()

stop_all() {
  trap - INT TERM EXIT
  if ((${#pids[@]})); then
    echo
    echo "Stopping ${pids[*]} ..."
    kill "${pids[@]}" 2>/dev/null || true
    wait "${pids[@]}" 2>/dev/null || true
  fi
  echo "Stopped."
}
trap stop_all INT TERM EXIT

echo "Building the sample app once ..."
./mvnw -q -B -pl membership-sample-app -am package -DskipTests
JAR=$(ls membership-sample-app/target/membership-sample-app-*.jar | grep -v '\.original$' | head -n 1)
mkdir -p "$LOGS"

java -jar "$JAR" --sample.embedded-mongo.standalone=true --sample.embedded-mongo.port="$DB_PORT" \
  > "$LOGS/database.log" 2>&1 &
pids+=($!)
echo "Embedded database starting on 127.0.0.1:$DB_PORT (pid $!, log $LOGS/database.log)"
for _ in $(seq 1 120); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$DB_PORT") 2>/dev/null; then break; fi
  sleep 0.5
done

for port in "${PORTS[@]}"; do
  # a node whose database port is taken joins the database running there
  java -jar "$JAR" --server.port="$port" --server.address=127.0.0.1 --sample.embedded-mongo.port="$DB_PORT" \
    > "$LOGS/node-$port.log" 2>&1 &
  pids+=($!)
  echo "Node starting on http://127.0.0.1:$port (pid $!, log $LOGS/node-$port.log)"
done

cat <<INFO

Watch the cluster:   http://127.0.0.1:8081/   (or 8082, 8083: each shows the cluster as that node sees it)
Cluster as JSON:     curl -s http://127.0.0.1:8081/actuator/cluster
Housekeeping runs:   curl -s http://127.0.0.1:8081/housekeeping/runs
Broadcast:           curl -s -X POST 'http://127.0.0.1:8081/cache/invalidate?key=k1'
                     curl -s http://127.0.0.1:8082/cache/events
Failover:            kill -9 <pid of the leader's node>   (or kill <pid> for a graceful hand-over)
Tenant roll-up:      curl -s http://127.0.0.1:8081/tenants/runs   (8 partitions of group 'tenants')
Another node:        java -jar $JAR --server.port=8084 --server.address=127.0.0.1 --sample.embedded-mongo.port=$DB_PORT

Below: the owner of each tenant partition (node:epoch), printed whenever it changes. Kill a node or start
another and watch partitions move. Press Ctrl-C to stop everything.
INFO

previous=""
while true; do
  owners=""
  for port in "${PORTS[@]}" 8084 8085; do
    if owners=$(curl -sf --max-time 1 "http://127.0.0.1:$port/tenants/owners" 2>/dev/null); then break; fi
  done
  if [[ -n "$owners" && "$owners" != "$previous" ]]; then
    echo "$(date +%T) tenants: $owners"
    previous="$owners"
  fi
  sleep 2
done
