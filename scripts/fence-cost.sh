#!/usr/bin/env bash
# The PostgreSQL transaction fence's cost on a real server (Debian's PostgreSQL 15, as root): pgbench runs read-only
# transactions unfenced and fenced (FOR SHARE of the term row and a shared advisory lock, as TransactionFence runs it)
# and counts the MultiXact ids they used. CLIENTS (8), JOBS (2) and SECONDS_EACH (20) set the run. BENCHMARKS.md.
set -euo pipefail
BIN=/usr/lib/postgresql/15/bin
DIR=$(mktemp -d); chown postgres "$DIR"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
runuser -u postgres -- $BIN/initdb -D "$DIR" -A trust -U postgres >/dev/null
runuser -u postgres -- $BIN/pg_ctl -D "$DIR" -o "-p $PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories=$DIR -c synchronous_commit=on" -l "$DIR/log" -w start >/dev/null
P="psql -h 127.0.0.1 -p $PORT -U postgres -qtA"
$P -c "CREATE TABLE membership_terms (name text PRIMARY KEY, epoch bigint NOT NULL, began_at timestamptz)"
$P -c "INSERT INTO membership_terms VALUES ('default', 1, now())"
echo "BEGIN; SELECT 1; COMMIT;" > "$DIR.plain.sql"
cat > "$DIR.fenced.sql" <<'SQL'
BEGIN;
SELECT t.epoch, pg_advisory_xact_lock_shared(hashtextextended('membership_terms/default', 0))::text FROM membership_terms t WHERE t.name = 'default' FOR SHARE OF t;
SELECT 1;
COMMIT;
SQL
mx() { $P -c "CHECKPOINT" >/dev/null; $P -c "SELECT next_multixact_id FROM pg_control_checkpoint()"; }
for script in plain fenced; do
  before=$(mx)
  out=$(pgbench -h 127.0.0.1 -p $PORT -U postgres -n -c ${CLIENTS:-8} -j ${JOBS:-2} -T ${SECONDS_EACH:-20} -f "$DIR.$script.sql" postgres 2>&1)
  after=$(mx)
  tps=$(echo "$out" | grep -oP 'tps = \K[0-9.]+' | head -1)
  tx=$(echo "$out" | grep -oP 'number of transactions actually processed: \K[0-9]+')
  echo "$script: $tx transactions, $tps tps, MultiXact ids $before -> $after ($((after - before)) used)"
done
runuser -u postgres -- $BIN/pg_ctl -D "$DIR" -m fast -w stop >/dev/null
rm -rf "$DIR" "$DIR".*.sql
