#!/usr/bin/env bash
# A long nemesis run on a real PostgreSQL: the packaged sample's nodes in network namespaces under a seeded schedule
# of partitions, delays, losses, clock jumps and drift, pauses, crashes, stops and database restarts, checked at the
# end. Needs root, nftables and
# Debian's libfaketime. Prints the table (faults by kind, units, beliefs, runs, fenced writes, violations); the run's
# logs and report.md are under membership-nemesis/target/nemesis-logs/seed-<seed>.
#   scripts/nemesis.sh --minutes 60 [--seed 42] [--backend postgres|mongodb]
#   scripts/nemesis.sh --recheck membership-nemesis/target/nemesis-logs/seed-42   (a finished run, by today's checker)
# (mongodb: the MongoDB stand-in, for the network's faults; its fenced writes are checked by what they left)
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=10
seed=$(date +%s%N)
backend=postgres
recheck=
while [ $# -gt 0 ]; do
  case "$1" in
    --recheck) recheck="$(cd "$2" && pwd)"; shift 2 ;;
    --minutes) minutes="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --backend) backend="$2"; shift 2 ;;
    *) echo "usage: $0 [--minutes N] [--seed S] [--backend postgres|mongodb] | --recheck <a run's logs>" >&2; exit 2 ;;
  esac
done
if [ -n "$recheck" ]; then
  exec ./mvnw -B verify -pl membership-nemesis -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
    -Dit.test=NemesisIT#aFinishedRunIsCheckedAgain -Dnemesis.recheck="$recheck"
fi
# the sample as the sources say now (an older jar has no journal, or an older starter)
./mvnw -B -q -DskipTests install -pl membership-sample-app -am
status=0
./mvnw -B -q verify -pl membership-nemesis -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=NemesisIT#noFaultFoolsTheChecker \
  -Dnemesis.minutes="$minutes" -Dnemesis.seed="$seed" -Dnemesis.backend="$backend" || status=$?
report="membership-nemesis/target/nemesis-logs/seed-$seed/report.md"
if [ -f "$report" ]; then cat "$report"; else echo "no report: the run failed before its end; see $(dirname "$report")" >&2; fi
exit $status
