#!/usr/bin/env bash
# Builds the starter and this module, then runs the benchmark harness: bench.sh [guard] [load] [failover] [scale]
# [handover] [partitions] [postgres-load] [postgres-failover] [parallel] [idle] [cost] [fires] [lateness] [--quick] [--out FILE] [--sizes N[@R],...]
# [--threads N] [--trials N] [--leases MS,...] [--windows N]. No scenario means all twelve. See
# BENCHMARKS.md. BENCH_JAVA_OPTS replaces the harness JVM's options (default -Xmx4g -Xss512k; the scale scenario's
# 2,000 nodes want more heap, e.g. BENCH_JAVA_OPTS="-Xmx16g -Xss512k").
set -euo pipefail
cd "$(dirname "$0")/.."
./mvnw -B -q -pl membership-bench -am package -DskipTests
# shellcheck disable=SC2086 # the options are words
exec java ${BENCH_JAVA_OPTS:--Xmx4g -Xss512k} -cp "membership-bench/target/classes:$(cat membership-bench/target/bench.classpath)" \
  dev.membership.bench.BenchHarness "$@"
