#!/usr/bin/env bash
# The heavy run of the replicated queue (docs/CLUSTER.md §7): three real
# `weida broker --cluster` processes on loopback, the leader SIGKILLed
# under 256 exchanges in flight and restarted, 20 times (tests/clustercrash);
# at the end every certified message was delivered, nothing else was, and
# delivery_attempt never went backwards. Prints the failover time (kill to
# the next leader's first confirm), p50 and p99.
#
#   ./build/cluster-chaos.sh            # 20 kills on a flushed queue, then on a written
#                                       # one (WEIDA_CLUSTER_KILLS overrides)
#   ./build/cluster-chaos.sh --idle     # no leader change in 10 idle minutes
#                                       # (WEIDA_CLUSTER_IDLE overrides the window)
#
# Without -race and one test at a time: the figures are the cluster's, not
# the race detector's (the test command runs 3 kills under -race).
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
"")
	kills="${WEIDA_CLUSTER_KILLS:-20}"
	for durability in flushed written; do
		echo "== clustercrash: $kills leader kills under 256 confirms in flight, a $durability queue"
		WEIDA_CLUSTER_KILLS="$kills" WEIDA_CLUSTER_DURABILITY="$durability" go test -count=1 -v -timeout 60m \
			-run '^TestKilledLeaderLosesNothingCertified$' ./tests/clustercrash/
	done
	;;
--idle)
	window="${WEIDA_CLUSTER_IDLE:-10m}"
	echo "== clustercrash: an idle cluster for $window, no leader change allowed"
	WEIDA_CLUSTER_IDLE="$window" go test -count=1 -v -timeout 60m \
		-run '^TestIdleClusterKeepsItsLeader$' ./tests/clustercrash/
	;;
*)
	echo "usage: $0 [--idle]" >&2
	exit 2
	;;
esac
