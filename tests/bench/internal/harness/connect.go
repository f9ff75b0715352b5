package harness

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// connectSize is the request of a cold connection's first round trip.
const connectSize = 64

// connectGap is the pause after each connection's close before the next
// connect, the same for every system. Without it a system whose close
// returns at once (raw quic-go, NATS) connects again on CPUs still busy
// from the last one, while one whose graceful close waits (weida lets the
// ACKs it owes go out first: up to quic-go's 25 ms max_ack_delay) connects
// from idle CPUs, whose wake-ups are slow on a virtual machine. The close
// is never timed either way; the gap only makes every connect as cold.
const connectGap = 30 * time.Millisecond

// connectGroup measures cold connections: a new client, connected to a
// running server, until its first reply.
func (r *Runner) connectGroup(ctx context.Context) Group {
	g := Group{ID: "connect", Title: "Cold connect",
		About: fmt.Sprintf("A new client (weida: a new Runtime and Requester; quic-go: a new UDP socket and QUIC handshake; "+
			"NATS: a new connection; ZeroMQ: a new context and REQ socket) connects to a running echo server and completes "+
			"one %d B request/reply: ZeroMQ connects in the background, so the first reply is the one moment every system "+
			"agrees on. %d connections per repetition, one after another, each closed and followed by a %v pause before the next "+
			"(every connect starts from CPUs equally idle, however long a system's close takes); percentiles pool all of them. "+
			"Both ends run in the harness process.", connectSize, r.Plan.Connects, connectGap),
		Metrics: []Metric{
			{Key: "p50_us", Label: "median", Unit: "µs", LowerIsBetter: true, Headline: true},
			{Key: "p99_us", Label: "p99", Unit: "µs", LowerIsBetter: true},
		}}
	spec := caseSpec{id: "connect", label: "connect + first 64 B reply", param: connectSize}
	r.runGroup(ctx, &g, []caseSpec{spec}, r.Plan.Reps, freshPerRep, func(ctx context.Context, s system.System, _ caseSpec) (session, error) {
		srv, err := s.StartEcho(ctx, connectSize)
		if err != nil {
			return nil, err
		}
		return &connectSession{sys: s, srv: srv, connects: r.Plan.Connects}, nil
	})
	return g
}

// connectSession is a running echo server to connect to.
type connectSession struct {
	sys      system.System
	srv      system.Server
	connects int
}

func (s *connectSession) rep(ctx context.Context, _ int) (measurement, error) {
	payload := make([]byte, connectSize)
	samples := make([]time.Duration, 0, s.connects)
	for range s.connects {
		start := time.Now()
		cli, err := s.sys.DialEcho(ctx, s.srv.Addr(), connectSize)
		if err != nil {
			return measurement{}, err
		}
		err = cli.Request(ctx, payload)
		took := time.Since(start)
		if err = errors.Join(err, cli.Close()); err != nil {
			return measurement{}, err
		}
		samples = append(samples, took)
		time.Sleep(connectGap)
	}
	return measurement{samples: samples, figures: map[string]float64{
		"rep_p50_us": micros(percentile(sortedDurations(samples), 0.5)),
	}}, nil
}

func (s *connectSession) close() error { return s.srv.Close() }
