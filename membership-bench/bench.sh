#!/usr/bin/env bash
# Builds the starter and this module, then runs the benchmark harness: bench.sh [guard] [load] [failover] [scale]
# [--quick] [--out FILE]. No scenario means all four. See BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
./mvnw -B -q -pl membership-bench -am package -DskipTests
exec java -Xmx4g -Xss512k -cp "membership-bench/target/classes:$(cat membership-bench/target/bench.classpath)" \
  dev.membership.bench.BenchHarness "$@"
