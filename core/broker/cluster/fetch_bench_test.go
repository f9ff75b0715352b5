package cluster

import (
	"encoding/binary"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkStreamedAdmit commits ADMITs of distinct 64 KiB bodies on a
// flushed 3-member cluster in this process (QUIC on loopback), each body
// written to the leader's store first: with the leader's push, and without
// it (the followers fetch while storing the ADMIT). Each op is one body
// written, pushed or fetched, fsynced on a quorum and committed.
func BenchmarkStreamedAdmit(b *testing.B) {
	tc := startCluster(b, 3, "/jobs")
	tc.waitFor(b, "a leader", func() bool { return tc.leaderOf("/jobs", tc.nodes...) != nil })
	g := tc.leaderOf("/jobs", tc.nodes...).Group("/jobs")
	body := make([]byte, 64<<10)
	var unique atomic.Uint64
	admit := func(b *testing.B, push bool) {
		buf := append([]byte(nil), body...)
		binary.LittleEndian.PutUint64(buf, unique.Add(1))
		pb, err := g.Payloads().NewBody()
		if err != nil {
			b.Fatal(err)
		}
		pb.Write(buf)
		d, n, err := pb.Commit()
		if err != nil {
			b.Fatal(err)
		}
		e := streamedAdmitOf(d, buf[:n])
		if push {
			_, err = g.Propose(b.Context(), e)
		} else {
			raw, _ := e.Encode()
			err = g.raft.Apply(raw, 10*time.Second).Error()
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	for _, push := range []bool{true, false} {
		name := "push"
		if !push {
			name = "fetch"
		}
		for _, inFlight := range []int{1, 32} {
			b.Run(name+"/in-flight-"+map[int]string{1: "1", 32: "32"}[inFlight], func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				if inFlight == 1 {
					for b.Loop() {
						admit(b, push)
					}
					return
				}
				b.SetParallelism(inFlight / 2) // GOMAXPROCS is 2 here; RunParallel multiplies
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						admit(b, push)
					}
				})
			})
		}
	}
}
