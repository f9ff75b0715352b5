package main

// weida broker --cluster serving: three member processes on loopback.

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// startMembers starts member i of s with the cluster file at files[i] for
// every i, and waits for each one's address line.
func (s *clusterSite) startMembers(t *testing.T, files []string, extra ...string) []*proc {
	t.Helper()
	var procs []*proc
	for i, file := range files {
		args := []string{"broker", s.bindURL(i, "/jobs"), "--cluster", file, "--identity", s.identities[i], "--data", t.TempDir()}
		if i == 0 {
			args = append(args, extra...)
		}
		procs = append(procs, awaitAddress(t, startWeida(t, false, args...)))
	}
	return procs
}

// replicatedConfirm sends body to the members in turn until one confirms
// it (a member that does not lead refuses, and there is no leader for a
// moment after the start), and returns the confirmed level.
func replicatedConfirm(t *testing.T, ctx context.Context, addrs []string, body string) uint64 {
	t.Helper()
	rt := clientRuntime(t)
	var last error
	for i := 0; ctx.Err() == nil; i++ {
		req := rt.Requester(weida.TrustByAddress())
		attempt, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := req.Connect(attempt, addrs[i%len(addrs)])
		var meta weida.IncomingMeta
		if err == nil {
			_, meta, err = req.RequestWith(attempt, weida.TransferMeta{}, []byte(body), 16)
		}
		cancel()
		_ = req.Close()
		if err == nil {
			level, _ := meta.Achieved()
			return level
		}
		last = err
		pace := time.NewTimer(50 * time.Millisecond) // paces retries while an election runs
		select {
		case <-pace.C:
		case <-ctx.Done():
		}
	}
	t.Fatalf("no member confirmed %q: %v", body, last)
	return 0
}

func TestBrokerClusterServesAReplicatedQueue(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	site := newClusterSite(t, 3)
	file := site.file(t, "cluster.json", jobsQueue)
	trust := t.TempDir() + "/members.keys"
	procs := site.startMembers(t, []string{file, file, file}, "--trust-out", trust, "--raft-log", "info")
	var addrs []string
	for i, p := range procs {
		want := "weida://" + site.keys[i] + "@" + strings.TrimPrefix(site.bindURL(i, "/jobs"), "weida://")
		if p.addr != want {
			t.Fatalf("member %d printed %q, want %q", i+1, p.addr, want)
		}
		addrs = append(addrs, p.addr)
	}
	raw, err := os.ReadFile(trust)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range site.keys {
		if !strings.Contains(string(raw), key+" ") {
			t.Fatalf("the trust file lacks member %s:\n%s", key, raw)
		}
	}
	if level := replicatedConfirm(t, ctx, addrs, "job"); level != weida.Replicated {
		t.Fatalf("a flushed replicated queue confirmed level %d, want Replicated (4)", level)
	}
	// --raft-log shows hashicorp/raft's own lines, named after the queue.
	procs[0].expectMatch(t, regexp.MustCompile(`\[INFO\] +raft /jobs: entering follower state`))
	// Every member names the leader, in its log and in its figures.
	procs[0].expectMatch(t, regexp.MustCompile(`msg="cluster: leader changed" queue=/jobs leader=sha256:[0-9a-f]{64} term=\d+`))
	if err := procs[0].cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	stats := procs[0].expectMatch(t, regexp.MustCompile(`^weida: stats queue=/jobs ready=\d+ unsettled=0 consumers=0 delivered=0 refused=0 `+
		`leader=weida://(sha256:[0-9a-f]{64})@127\.0\.0\.1:\d+/jobs leading=(true|false) state=\w+ term=[1-9]\d* commit=[1-9]\d* applied=\d+ last_contact=\S+$`))
	if !strings.Contains(strings.Join(site.keys, " "), stats[1]) {
		t.Fatalf("the figures name leader %s, not a member", stats[1])
	}
	for i, key := range site.keys {
		procs[0].expectLine(t, fmt.Sprintf("weida: stats queue=/jobs member=%s url=127.0.0.1:%d raft=127.0.0.1:%d", key, site.client[i], site.raft[i]))
	}
	for i, p := range procs {
		if code, _, stderr := p.stop(t); code != exitOK {
			t.Fatalf("member %d exited %d on SIGTERM; stderr:\n%s", i+1, code, stderr)
		}
	}
}

// TestBrokerClusterMembersWithDifferentFilesRefuseEachOther starts two
// members with one file and the third with the same members but another
// durability: each side refuses the other, naming its key and both
// digests.
func TestBrokerClusterMembersWithDifferentFilesRefuseEachOther(t *testing.T) {
	t.Parallel()
	site := newClusterSite(t, 3)
	file := site.file(t, "cluster.json", jobsQueue)
	other := site.file(t, "other.json", `{"path": "/jobs", "durability": "written"}`)
	procs := site.startMembers(t, []string{file, file, other})
	refusal := func(keys ...string) *regexp.Regexp {
		quoted := make([]string, len(keys))
		for i, k := range keys {
			quoted[i] = regexp.QuoteMeta(k)
		}
		return regexp.MustCompile(`level=ERROR msg="raft port: refusing a member that read another cluster file" member=(?:` +
			strings.Join(quoted, "|") + `) their_digest=([0-9a-f]{64}) our_digest=([0-9a-f]{64})`)
	}
	ours := procs[0].expectMatch(t, refusal(site.keys[2]))
	theirs := procs[2].expectMatch(t, refusal(site.keys[0], site.keys[1]))
	if ours[1] == ours[2] || ours[1] != theirs[2] || ours[2] != theirs[1] {
		t.Fatalf("the two sides name other digests:\n%s\n%s", ours[0], theirs[0])
	}
	for _, p := range procs {
		p.stop(t)
	}
}
