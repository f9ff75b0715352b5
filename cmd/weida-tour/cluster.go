package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	weida "github.com/weida-go/weida/core"
)

// clusterTitle heads the cluster scene, which needs three members'
// addresses and process ids.
const clusterTitle = "CLUSTER: three brokers replicate a queue; its leader is killed mid-stream and nothing certified is lost"

const (
	// clusterJobs is how many messages the producer sends, the leader
	// being killed once clusterKillAfter of them are confirmed.
	clusterJobs      = 8
	clusterKillAfter = 4
	// clusterAttempt bounds one send to one member: a killed member
	// answers nothing, and a client notices only at its idle timeout.
	clusterAttempt = 3 * time.Second
	// clusterPace spaces the producer's tries while no leader is known.
	clusterPace = 200 * time.Millisecond
)

// clusterClient notices a killed member within a second (it sends no
// CONNECTION_CLOSE: only the idle timeout ends its connections).
var clusterClient = weida.Config{Limits: weida.Limits{IdleTimeout: time.Second, KeepAlive: 250 * time.Millisecond}}

// clusterScene is the members' queue addresses and their process ids, in
// the same order.
type clusterScene struct {
	urls []string
	pids []int
}

// member is the index of the member whose address is url, or -1.
func (c clusterScene) member(url string) int { return slices.Index(c.urls, url) }

// clusterRun is the scene's state: which member the producer sends to,
// and what was certified and delivered.
type clusterRun struct {
	c         clusterScene
	s         story
	rt        *weida.Runtime
	leader    int // the member the producer believes leads
	certified map[string]bool
	settled   map[string]bool
}

// runCluster plays the cluster scene c.
func runCluster(ctx context.Context, s story, c clusterScene) error {
	rt, err := weida.NewRuntime(clusterClient)
	if err != nil {
		return err
	}
	defer rt.Shutdown()
	r := &clusterRun{c: c, s: s, rt: rt, certified: map[string]bool{}, settled: map[string]bool{}}
	s.say("three members serve the queue; the producer is given member 1's address only")
	for i := 1; i <= clusterKillAfter; i++ {
		if err := r.produce(ctx, i); err != nil {
			return err
		}
	}
	consumer, err := r.subscribe(ctx, clusterKillAfter-1)
	if err != nil {
		return err
	}
	for range clusterKillAfter - 2 {
		if err := r.consume(ctx, consumer, true); err != nil {
			return err
		}
	}
	if err := r.consume(ctx, consumer, false); err != nil {
		return err
	}
	killed := r.leader
	s.say("kill -KILL %d    # member %d, the leader, mid-stream: one delivery out unsettled, one message not yet delivered", c.pids[killed], killed+1)
	if err := syscall.Kill(c.pids[killed], syscall.SIGKILL); err != nil {
		return fmt.Errorf("cluster: cannot kill member %d: %w", killed+1, err)
	}
	_ = consumer.Close()
	for i := clusterKillAfter + 1; i <= clusterJobs; i++ {
		if err := r.produce(ctx, i); err != nil {
			return err
		}
	}
	// Credit for every job twice over: a job whose settlement the old
	// leader had not committed comes back too.
	if consumer, err = r.subscribe(ctx, 2*clusterJobs); err != nil {
		return err
	}
	defer consumer.Close()
	for len(r.settled) < len(r.certified) {
		if err := r.consume(ctx, consumer, true); err != nil {
			return err
		}
	}
	s.say("every one of the %d certified messages was delivered and settled; nothing was lost with the leader", len(r.certified))
	return nil
}

// produce sends job i to the member the producer believes leads, following
// NOT_LEADER to the member it names, and moving on to the next member
// while the leader is unreachable or none is known yet.
func (r *clusterRun) produce(ctx context.Context, i int) error {
	body := fmt.Sprintf("job %d", i)
	for {
		if ctx.Err() != nil {
			return fmt.Errorf("cluster: %q was never confirmed: %w", body, ctx.Err())
		}
		level, err := r.exchange(ctx, r.c.urls[r.leader], body)
		var notLeader *weida.NotLeaderError
		switch {
		case err == nil:
			r.certified[body] = true
			r.s.say("producer sends %q to member %d: confirmed %s", body, r.leader+1, levelName(level))
			return nil
		case errors.As(err, &notLeader) && r.c.member(notLeader.Leader) >= 0:
			next := r.c.member(notLeader.Leader)
			r.s.say("member %d answers NOT_LEADER: the leader is member %d (term %d)", r.leader+1, next+1, notLeader.Term)
			r.leader = next
			continue // refused, so not admitted: sending again duplicates nothing
		case errors.As(err, &notLeader):
			r.s.say("member %d answers NOT_LEADER: no leader yet (an election is under way)", r.leader+1)
		default:
			r.s.say("member %d does not answer (%v): trying the next member", r.leader+1, weida.KindOf(err))
		}
		r.leader = (r.leader + 1) % len(r.c.urls)
		pace := time.NewTimer(clusterPace)
		select {
		case <-ctx.Done():
		case <-pace.C:
		}
		pace.Stop()
	}
}

// exchange sends body to url and returns the confirmed level.
func (r *clusterRun) exchange(ctx context.Context, url, body string) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, clusterAttempt)
	defer cancel()
	req := r.rt.Requester(weida.TrustByAddress())
	defer req.Close()
	if err := req.Connect(ctx, url); err != nil {
		return 0, err
	}
	_, meta, err := req.RequestWith(ctx, weida.TransferMeta{}, []byte(body), 0)
	if err != nil {
		return 0, err
	}
	if level, ok := meta.Achieved(); ok && level >= weida.Accepted {
		return level, nil
	}
	return 0, fmt.Errorf("cluster: %q confirmed without a level", body)
}

// subscribe subscribes to the leader with credit for n deliveries: a new
// leader starts every subscription at zero credit.
func (r *clusterRun) subscribe(ctx context.Context, n int) (*weida.Subscriber, error) {
	sub := r.rt.Subscriber(weida.TrustByAddress())
	err := sub.Connect(ctx, r.c.urls[r.leader])
	if err == nil {
		err = sub.Subscribe(ctx, "")
	}
	if err == nil {
		err = sub.Grant(ctx, uint64(n))
	}
	if err != nil {
		_ = sub.Close()
		return nil, fmt.Errorf("cluster: the consumer cannot subscribe at member %d: %w", r.leader+1, err)
	}
	r.s.say("consumer subscribes at member %d, the leader, and grants credit for %d", r.leader+1, n)
	return sub, nil
}

// consume receives one delivery and settles it with PROCESSED, or holds it
// unsettled when settle is false.
func (r *clusterRun) consume(ctx context.Context, sub *weida.Subscriber, settle bool) error {
	body, meta, report, err := sub.RecvReporting(ctx, 1<<10)
	if err != nil {
		return fmt.Errorf("cluster: receive: %w", err)
	}
	job := string(body)
	if _, sent := r.certified[job]; !sent {
		return fmt.Errorf("cluster: the consumer received %q, which was never confirmed", job)
	}
	attempt, labelled := meta.DeliveryAttempt()
	if !labelled {
		attempt = 1
	}
	if report == nil {
		return fmt.Errorf("cluster: the delivery of %q ordered no report", job)
	}
	if !settle {
		r.s.say("consumer gets %q (delivery attempt %d) and holds it, unsettled", job, attempt)
		return nil
	}
	r.s.say("consumer gets %q (delivery attempt %d) and reports PROCESSED", job, attempt)
	r.settled[job] = true
	_ = report.Report(weida.Processed, uint64(len(body)))
	return report.Finish()
}

// parseCluster reads the cluster scene's arguments: --pids and the three
// members' addresses, in the same order.
func parseCluster(args []string) (func(context.Context, io.Writer) error, error) {
	var c clusterScene
	for ; len(args) > 0; args = args[1:] {
		if args[0] != "--pids" {
			c.urls = append(c.urls, args[0])
			continue
		}
		if len(args) < 2 {
			return nil, fmt.Errorf("--pids needs PID,PID,PID")
		}
		for _, field := range strings.Split(args[1], ",") {
			pid, err := strconv.Atoi(field)
			if err != nil || pid <= 0 {
				return nil, fmt.Errorf("--pids: %q is not a process id", field)
			}
			c.pids = append(c.pids, pid)
		}
		args = args[1:]
	}
	if len(c.urls) != 3 || len(c.pids) != 3 {
		return nil, fmt.Errorf("cluster takes three ADDRESSes and three --pids, got %d and %d", len(c.urls), len(c.pids))
	}
	return func(ctx context.Context, w io.Writer) error {
		fmt.Fprintf(w, "\n== %s\n", clusterTitle)
		if err := runCluster(ctx, story{w}, c); err != nil {
			return err
		}
		fmt.Fprintln(w, "\nweida-tour: the cluster behaved as specified")
		return nil
	}, nil
}

// parsePorts reads `ports N`: print N loopback UDP ports nobody held a
// moment ago, one per line, for the demo's cluster file (a file must name
// its members' ports, so port 0 will not do).
func parsePorts(args []string) (func(context.Context, io.Writer) error, error) {
	n := 0
	if len(args) == 1 {
		n, _ = strconv.Atoi(args[0])
	}
	if n < 1 || n > 64 {
		return nil, fmt.Errorf("ports takes a count from 1 to 64")
	}
	return func(_ context.Context, w io.Writer) error {
		// Every socket stays open until all are chosen, so no port repeats.
		var conns []net.PacketConn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for range n {
			c, err := net.ListenPacket("udp", "127.0.0.1:0")
			if err != nil {
				return err
			}
			conns = append(conns, c)
			fmt.Fprintln(w, c.LocalAddr().(*net.UDPAddr).Port)
		}
		return nil
	}, nil
}
