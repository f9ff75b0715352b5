package main

// sub --credit against a real `weida broker`: a window of credit, a
// settlement only for what stdout's reader took, --no-settle, and the
// refusal of a publisher.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// produce sends each body to the queue at addr and waits for its confirm.
func produce(t *testing.T, ctx context.Context, addr string, bodies ...string) {
	t.Helper()
	req := clientRuntime(t).Requester(weida.TrustByAddress())
	if err := req.Connect(ctx, addr); err != nil {
		t.Fatal(err)
	}
	for _, body := range bodies {
		if _, _, err := req.RequestWith(ctx, weida.TransferMeta{}, []byte(body), 16); err != nil {
			t.Fatalf("producing %q: %v", body, err)
		}
	}
}

// jobs is "job 1" to "job n".
func jobs(n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf("job %d", i))
	}
	return out
}

// queueFigures is one queue's stats line, read.
type queueFigures struct{ ready, unsettled, delivered int }

var statsLine = regexp.MustCompile(`^weida: stats queue=(\S+) ready=(\d+) unsettled=(\d+) consumers=\d+ delivered=(\d+)`)

// settledStats asks the broker for its figures (SIGUSR1) until queue path
// holds nothing unsettled — every settlement or give-back of a consumer
// that ended is applied — and returns them.
func settledStats(t *testing.T, broker *proc, path string) queueFigures {
	t.Helper()
	deadline := time.Now().Add(lineTimeout)
	for time.Now().Before(deadline) {
		if err := broker.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		var m []string
		for m == nil || m[1] != path {
			m = broker.expectMatch(t, statsLine)
		}
		f := queueFigures{atoi(t, m[2]), atoi(t, m[3]), atoi(t, m[4])}
		if f.unsettled == 0 {
			return f
		}
	}
	t.Fatalf("queue %s still held unsettled messages after %v; stderr:\n%s", path, lineTimeout, broker.stderr.text())
	return queueFigures{}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// expectConsumed checks a sub --credit that ended well printed want, one
// line each in any order (each delivery is a stream of its own, and a
// window above 1 lets them overtake each other), and said each was
// settled (or held) at the attempt given.
func expectConsumed(t *testing.T, r result, want []string, attempt int, outcome string) {
	t.Helper()
	if r.code != exitOK {
		t.Fatalf("exit %d, want 0; stderr:\n%s", r.code, r.stderr)
	}
	got := strings.SplitAfter(string(r.stdout), "\n")
	slices.Sort(got)
	if strings.Join(got, "") != string(framed(t, "line", want...)) {
		t.Errorf("stdout %q, want %q in any order", r.stdout, framed(t, "line", want...))
	}
	line := fmt.Sprintf("topic= bytes=5 attempt=%d %s", attempt, outcome)
	if n := strings.Count(r.stderr, line+"\n"); n != len(want) {
		t.Errorf("stderr has %d lines %q, want %d:\n%s", n, line, len(want), r.stderr)
	}
}

func TestSubCreditSettlesAWindowAndLeavesTheRestReady(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	broker, addrs := startBrokerProc(t, 1, "weida://127.0.0.1:0/jobs")
	produce(t, ctx, addrs[0], jobs(5)...)

	first := runWeida(t, nil, "sub", "--credit", "2", "--count", "3", addrs[0])
	expectConsumed(t, first, jobs(3), 1, "settled")
	if !strings.Contains(first.stderr, `subscribed filter="" credit=2`+"\n") {
		t.Errorf("no subscribed line with the window; stderr:\n%s", first.stderr)
	}
	if got := settledStats(t, broker, "/jobs"); got != (queueFigures{ready: 2, delivered: 3}) {
		t.Fatalf("after the first consumer the queue holds %+v, want 2 ready of 3 delivered", got)
	}

	// The credit never goes beyond --count: 2, not 5.
	second := runWeida(t, nil, "sub", "--credit", "5", "--count", "2", addrs[0])
	expectConsumed(t, second, jobs(5)[3:], 1, "settled")
	if !strings.Contains(second.stderr, `credit=2`+"\n") {
		t.Errorf("the second consumer's credit went beyond --count; stderr:\n%s", second.stderr)
	}
	if got := settledStats(t, broker, "/jobs"); got != (queueFigures{ready: 0, delivered: 5}) {
		t.Fatalf("after both consumers the queue holds %+v, want nothing ready of 5 delivered", got)
	}
}

// startSubOnPipe runs `weida sub args...` with the write end of a pipe as
// its stdout, and returns the read end, which the test reads and closes
// as a shell's next process would (`| head -1`). The returned proc's
// stdout reads nothing: the pipe is the test's.
func startSubOnPipe(t *testing.T, args ...string) (*proc, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{args: args, cmd: exec.Command(weidaBinary, append([]string{"sub"}, args...)...),
		stdout: bufio.NewReader(strings.NewReader("")), stderr: newLineLog()}
	p.cmd.Stdout = w
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close() // the child holds its own copy
	go p.stderr.collect(stderr)
	t.Cleanup(func() {
		r.Close()
		if !p.ended {
			_ = p.cmd.Process.Kill()
			_ = p.cmd.Wait()
		}
	})
	return p, r
}

// readExactly reads n bytes of r, no more, so the rest stays in the pipe.
func readExactly(t *testing.T, r io.Reader, n int) string {
	t.Helper()
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		t.Fatalf("reading %d bytes of sub's stdout: %v", n, err)
	}
	return string(buf)
}

// expectGivenBack waits for sub to end on a reader of stdout that went
// away, and checks it said the message it held goes back unsettled.
func expectGivenBack(t *testing.T, p *proc, attempt int) {
	t.Helper()
	code, _, stderr := p.wait(t)
	want := fmt.Sprintf("weida: the message on topic= (attempt %d) goes back to the queue unsettled", attempt)
	if code != exitFailure || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, want 1 with %q; stderr:\n%s", code, want, stderr)
	}
}

func TestSubCreditSettlesNothingItsReaderDidNotTake(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	broker, addrs := startBrokerProc(t, 3, "weida://127.0.0.1:0/part", "--queue", "/whole,/stop")
	part, whole, stop := addrs[0], addrs[1], addrs[2]

	t.Run("a message the reader took part of", func(t *testing.T) {
		produce(t, ctx, part, jobs(2)...)
		p, stdout := startSubOnPipe(t, "--credit", "1", part)
		// The pipe holds the rest of "job 1\n" when its reader leaves: the
		// write succeeded, and still the message was not handed over.
		if got := readExactly(t, stdout, 3); got != "job" {
			t.Fatalf("stdout began %q, want \"job\"", got)
		}
		stdout.Close()
		expectGivenBack(t, p, 1)
		next := runWeida(t, nil, "sub", "--credit", "1", "--count", "1", part)
		expectConsumed(t, next, jobs(1), 2, "settled")
	})

	t.Run("the message after the one the reader took", func(t *testing.T) {
		produce(t, ctx, whole, jobs(2)...)
		p, stdout := startSubOnPipe(t, "--credit", "1", whole)
		if got := readExactly(t, stdout, 6); got != "job 1\n" {
			t.Fatalf("stdout began %q, want \"job 1\\n\"", got)
		}
		p.expectLine(t, "topic= bytes=5 attempt=1 settled")
		stdout.Close()
		expectGivenBack(t, p, 1)
		next := runWeida(t, nil, "sub", "--credit", "1", "--count", "1", whole)
		if string(next.stdout) != "job 2\n" || !strings.Contains(next.stderr, "attempt=2 settled") {
			t.Fatalf("the next consumer got %q, want job 2 at its second attempt; stderr:\n%s", next.stdout, next.stderr)
		}
	})
	t.Run("a message in hand when sub is stopped", func(t *testing.T) {
		produce(t, ctx, stop, jobs(1)...)
		p, stdout := startSubOnPipe(t, "--credit", "1", stop)
		if got := readExactly(t, stdout, 3); got != "job" {
			t.Fatalf("stdout began %q, want \"job\"", got)
		}
		// SIGTERM is sub's ordinary end without --count: exit 0, and the
		// message its reader has not finished goes back.
		if code, _, stderr := p.stop(t); code != exitOK || strings.Contains(stderr, "settled") {
			t.Fatalf("exit %d on SIGTERM, want 0 and nothing settled; stderr:\n%s", code, stderr)
		}
		next := runWeida(t, nil, "sub", "--credit", "1", "--count", "1", stop)
		expectConsumed(t, next, jobs(1), 2, "settled")
	})
	// Job 1 of /part went out twice and job 2 never; job 2 of /whole twice.
	if got := settledStats(t, broker, "/part"); got != (queueFigures{ready: 1, delivered: 2}) {
		t.Errorf("queue /part holds %+v, want job 2 ready and 2 deliveries", got)
	}
	if got := settledStats(t, broker, "/whole"); got != (queueFigures{ready: 0, delivered: 3}) {
		t.Errorf("queue /whole holds %+v, want nothing ready and 3 deliveries", got)
	}
	if got := settledStats(t, broker, "/stop"); got != (queueFigures{ready: 0, delivered: 2}) {
		t.Errorf("queue /stop holds %+v, want nothing ready and 2 deliveries", got)
	}
}

func TestSubNoSettleHoldsWhatItPrinted(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	broker, addrs := startBrokerProc(t, 1, "weida://127.0.0.1:0/jobs")
	produce(t, ctx, addrs[0], jobs(2)...)

	peek := runWeida(t, nil, "sub", "--credit", "2", "--no-settle", "--count", "2", addrs[0])
	expectConsumed(t, peek, jobs(2), 1, "held")
	if got := settledStats(t, broker, "/jobs"); got != (queueFigures{ready: 2, delivered: 2}) {
		t.Fatalf("after the peek the queue holds %+v, want both back and ready", got)
	}
	take := runWeida(t, nil, "sub", "--credit", "2", "--count", "2", addrs[0])
	expectConsumed(t, take, jobs(2), 2, "settled")
}

func TestSubCreditRefusesAPublisher(t *testing.T) {
	t.Parallel()
	pub := startServeFed(t, "--pub", "weida://127.0.0.1:0/feed")
	sub := startWeida(t, false, "sub", "--credit", "1", pub.addr)
	pub.awaitSubscription(t, "probe hello")
	code, stdout, stderr := sub.wait(t)
	if code != exitFailure || len(stdout) != 0 || !strings.Contains(stderr, "the peer is not a queue") {
		t.Fatalf("exit %d, stdout %q; want 1, nothing on stdout, and the refusal; stderr:\n%s", code, stdout, stderr)
	}
}

// startTrustedCluster starts three members serving /jobs and returns
// them, their addresses and the trust file the first wrote (--trust-out).
func startTrustedCluster(t *testing.T) (site *clusterSite, procs []*proc, addrs []string, trust string) {
	t.Helper()
	site = newClusterSite(t, 3)
	file := site.file(t, "cluster.json", jobsQueue)
	trust = filepath.Join(t.TempDir(), "members.keys")
	procs = site.startMembers(t, []string{file, file, file}, "--trust-out", trust)
	for _, p := range procs {
		addrs = append(addrs, p.addr)
	}
	return site, procs, addrs, trust
}

// TestSubCreditFollowsAReplicatedQueuesLeader gives `sub --credit` a
// follower's keyless URL and the members' trust file: the library finds
// the leader, and every message is delivered there and settled.
func TestSubCreditFollowsAReplicatedQueuesLeader(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	site, procs, addrs, trust := startTrustedCluster(t)
	for _, body := range jobs(3) {
		replicatedConfirm(t, ctx, addrs, body)
	}
	leaderKey := statsLeader(t, procs[0])
	leader, follower := slices.Index(site.keys, leaderKey), slices.IndexFunc(site.keys, func(k string) bool { return k != leaderKey })

	r := runWeida(t, nil, "sub", "--trust", trust, "--timeout", "30s", "--credit", "1", "--count", "3", site.bindURL(follower, "/jobs"))
	expectConsumed(t, r, jobs(3), 1, "settled")
	if got := settledStats(t, procs[leader], "/jobs"); got.ready != 0 {
		t.Fatalf("the leader's queue holds %+v after the consumer, want nothing ready", got)
	}
}
