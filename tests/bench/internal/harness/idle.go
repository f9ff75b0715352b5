package harness

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// idleGroup measures what idle connections cost a server: its RSS with
// the connections open, less its RSS before, per connection.
func (r *Runner) idleGroup(ctx context.Context) Group {
	g := Group{ID: "idle", Title: "Memory per idle connection",
		About: fmt.Sprintf("An echo server runs in a fresh child process; the harness opens %d client connections to it "+
			"(each its own client, as in cold connect) and completes one %d B request/reply on each, so every connection is "+
			"fully set up, then leaves them idle. The figure is the server's resident set with them open less before they came, "+
			"both read after a garbage collection that returns freed memory to the OS, divided by %d: the server-side cost "+
			"of one idle connection. Median over %d repetitions.", r.Plan.IdleConns, connectSize, r.Plan.IdleConns, r.Plan.IdleReps),
		Metrics: []Metric{
			{Key: "kib_per_conn", Label: "server RSS per idle connection", Unit: "KiB", LowerIsBetter: true, Headline: true},
		}}
	spec := caseSpec{id: fmt.Sprintf("idle/%d", r.Plan.IdleConns), label: fmt.Sprintf("%d idle connections", r.Plan.IdleConns),
		param: float64(r.Plan.IdleConns)}
	r.runGroup(ctx, &g, []caseSpec{spec}, r.Plan.IdleReps, freshPerRep, func(ctx context.Context, s system.System, c caseSpec) (session, error) {
		return &idleSession{r: r, sys: s, spec: c}, nil
	})
	return g
}

// idleSession runs each repetition against its own child server.
type idleSession struct {
	r    *Runner
	sys  system.System
	spec caseSpec
}

// idleChildResult is the child's resident set before and with the
// connections.
type idleChildResult struct {
	Before int64 `json:"rss_before"`
	After  int64 `json:"rss_after"`
}

func (s *idleSession) rep(ctx context.Context, _ int) (m measurement, err error) {
	args := append([]string{"idle-server", "-system", s.sys.Name()}, s.r.childProfileArgs(s.spec.id, s.sys.Name())...)
	child, err := startChild(s.r.Child(args...), nil)
	if err != nil {
		return measurement{}, err
	}
	var clients []system.Requester
	defer func() {
		err = errors.Join(err, system.CloseAll(clients), child.finish(ctx))
	}()
	addr, err := child.expect(ctx, "ready")
	if err != nil {
		return measurement{}, err
	}
	payload := make([]byte, connectSize)
	for i := range s.r.Plan.IdleConns {
		cli, err := s.sys.DialEcho(ctx, addr, connectSize)
		if err != nil {
			return measurement{}, fmt.Errorf("connection %d: %w", i, err)
		}
		clients = append(clients, cli)
		if err := cli.Request(ctx, payload); err != nil {
			return measurement{}, fmt.Errorf("connection %d: %w", i, err)
		}
	}
	if err := child.send("measure"); err != nil {
		return measurement{}, err
	}
	var res idleChildResult
	if err := child.expectResult(ctx, &res); err != nil {
		return measurement{}, err
	}
	return measurement{figures: map[string]float64{
		"kib_per_conn":   float64(res.After-res.Before) / 1024 / float64(len(clients)),
		"rss_before_mib": mib(float64(res.Before)),
	}}, nil
}

func (s *idleSession) close() error { return nil }

// idleServerChild is the child side: an echo server that reports its
// resident set before any client and again on "measure".
func idleServerChild(ctx context.Context, sys system.System, io *childIO) error {
	srv, err := sys.StartEcho(ctx, connectSize)
	if err != nil {
		return err
	}
	defer srv.Close()
	before, err := settledRSS()
	if err != nil {
		return err
	}
	io.say("ready %s", srv.Addr())
	for {
		words, ok := io.next()
		if !ok || words[0] == "quit" {
			return nil
		}
		if words[0] != "measure" {
			return fmt.Errorf("unknown command %q", strings.Join(words, " "))
		}
		after, err := settledRSS()
		if err != nil {
			return err
		}
		if err := io.result(idleChildResult{Before: before, After: after}); err != nil {
			return err
		}
	}
}
