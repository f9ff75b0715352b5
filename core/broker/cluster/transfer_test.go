package cluster

import "testing"

// A retiring leader hands its leadership to a member that is still up,
// passing over one that stopped; once every other member has stopped in
// order there is nobody to hand it to, which is no failure.
func TestALeaderRetiresPastStoppedMembers(t *testing.T) {
	tc := startCluster(t, 3, "/jobs")
	tc.waitFor(t, "a leader", func() bool { return tc.leaderOf("/jobs", tc.nodes...) != nil })
	first := tc.leaderOf("/jobs", tc.nodes...)
	var followers []*Node
	for _, n := range tc.nodes {
		if n != first {
			followers = append(followers, n)
		}
	}
	followers[0].Close()
	if err := first.Group("/jobs").TransferLeadership(); err != nil {
		t.Fatalf("handing over with one member up: %v", err)
	}
	tc.waitFor(t, "the member still up leading", func() bool { return followers[1].Group("/jobs").IsLeader() })

	// The retiring broker logs what this returns at level ERROR.
	first.Close()
	if err := followers[1].Group("/jobs").TransferLeadership(); err != nil {
		t.Fatalf("retiring after every other member stopped: %v", err)
	}
}
