// Package clustercrash is the replicated queue's failover test (issue 19,
// docs/CLUSTER.md §4 and §7): three real `weida broker --cluster` child
// processes on loopback serve one replicated queue while 256 exchanges are
// in flight and a consumer settles every delivery with Processed. The
// current leader, found from the members' "cluster: leader changed" log
// lines, is killed with SIGKILL at a random point and restarted on the
// same data directory, key and ports, again and again.
//
// At the end the test requires that every message certified Accepted or
// Replicated was delivered at least once and intact, that nothing was
// delivered that was never sent or whose send failed definitely, and that
// no message's delivery_attempt went backwards. It reports the failover
// time, from the kill to the first confirm from the next leader, p50 and
// p99.
//
// WEIDA_CLUSTER_KILLS sets the number of kills (default 3 for the test
// command; build/cluster-chaos.sh runs 20), WEIDA_CLUSTER_SEED replays the
// random choices, WEIDA_CLUSTER_IDLE (a duration such as 10m) runs the
// idle check: no leader change while the cluster is idle that long, and
// WEIDA_CLUSTER_LARGE=0 keeps every body inline in the log (by default one
// body in 16 is larger than 4 KiB, streamed to the members' payload
// stores).
// README.md has the details and the figures.
//
// The package has no library code: it is tests only.
package clustercrash
