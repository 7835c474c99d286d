#!/usr/bin/env bash
# A long nemesis run on a real PostgreSQL: the packaged sample's nodes in network namespaces under a seeded schedule
# of partitions, delays, losses, clock jumps, pauses, crashes and stops, checked at the end. Needs root, nftables and
# Debian's libfaketime. Prints the table (faults by kind, units, beliefs, runs, fenced writes, violations); the run's
# logs and report.md are under membership-nemesis/target/nemesis-logs/seed-<seed>.
#   scripts/nemesis.sh --minutes 60 [--seed 42]
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=10
seed=$(date +%s%N)
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    *) echo "usage: $0 [--minutes N] [--seed S]" >&2; exit 2 ;;
  esac
done
ls membership-sample-app/target/membership-sample-app-*.jar >/dev/null 2>&1 || ./mvnw -B -q -DskipTests package -pl membership-sample-app -am
./mvnw -B -q verify -pl membership-nemesis -Dsurefire.skip=true -Dit.test=NemesisIT \
  -Dnemesis.minutes="$minutes" -Dnemesis.seed="$seed"
cat "membership-nemesis/target/nemesis-logs/seed-$seed/report.md"
