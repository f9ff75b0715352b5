package harness

import (
	"context"
	"errors"
	"time"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// reqrepWarmup round trips run untimed after connecting (steady state:
// a fresh connection still grows windows, pools and caches on both ends).
const reqrepWarmup = 200

// reqrepGroup measures sequential request/reply round trips of one size,
// request and reply equally large, on one established connection.
func (r *Runner) reqrepGroup(ctx context.Context) Group {
	g := Group{ID: "reqrep", Title: "Req/Rep round trip",
		About: "One requester, one connection established before the clock starts, round trips one after another " +
			"(request and reply of the same size; the replier reads the request whole and answers with it). " +
			"Percentiles pool every round trip of every repetition; both ends run in the harness process.",
		Metrics: []Metric{
			{Key: "p50_us", Label: "median", Unit: "µs", LowerIsBetter: true, Headline: true},
			{Key: "p99_us", Label: "p99", Unit: "µs", LowerIsBetter: true, Headline: true},
			{Key: "p90_us", Label: "p90", Unit: "µs", LowerIsBetter: true},
			{Key: "p999_us", Label: "p99.9", Unit: "µs", LowerIsBetter: true},
			{Key: "samples", Label: "round trips", Count: true},
		}}
	var specs []caseSpec
	for _, size := range r.Plan.ReqRepSizes {
		specs = append(specs, caseSpec{id: "reqrep/" + sizeLabel(int64(size)), label: sizeLabel(int64(size)), param: float64(size)})
	}
	r.runGroup(ctx, &g, specs, r.Plan.Reps, freshPerRep, func(ctx context.Context, s system.System, c caseSpec) (session, error) {
		return openReqRep(ctx, s, int(c.param), r.Plan)
	})
	return g
}

// reqrepSession is an echo server and one connected requester.
type reqrepSession struct {
	srv     system.Server
	cli     system.Requester
	payload []byte
	plan    Plan
}

func openReqRep(ctx context.Context, s system.System, size int, plan Plan) (session, error) {
	srv, err := s.StartEcho(ctx, size)
	if err != nil {
		return nil, err
	}
	cli, err := s.DialEcho(ctx, srv.Addr(), size)
	if err != nil {
		_ = srv.Close()
		return nil, err
	}
	sess := &reqrepSession{srv: srv, cli: cli, payload: make([]byte, size), plan: plan}
	for range reqrepWarmup {
		if err := cli.Request(ctx, sess.payload); err != nil {
			_ = sess.close()
			return nil, err
		}
	}
	return sess, nil
}

// rep runs round trips until ReqRepMax or ReqRepTime, whichever is first.
func (s *reqrepSession) rep(ctx context.Context, _ int) (measurement, error) {
	samples := make([]time.Duration, 0, s.plan.ReqRepMax)
	start := time.Now()
	for len(samples) < s.plan.ReqRepMax && time.Since(start) < s.plan.ReqRepTime {
		began := time.Now()
		if err := s.cli.Request(ctx, s.payload); err != nil {
			return measurement{}, err
		}
		samples = append(samples, time.Since(began))
	}
	elapsed := time.Since(start)
	return measurement{samples: samples, figures: map[string]float64{
		"round_trips_per_s": float64(len(samples)) / elapsed.Seconds(),
		"rep_p50_us":        micros(percentile(sortedDurations(samples), 0.5)),
	}}, nil
}

func (s *reqrepSession) close() error { return errors.Join(s.cli.Close(), s.srv.Close()) }
