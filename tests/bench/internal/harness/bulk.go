package harness

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// bulkGroup measures one large transfer on one stream, both ends in a
// fresh child process so that its peak RSS is the transfer's alone.
func (r *Runner) bulkGroup(ctx context.Context) Group {
	size := sizeLabel(r.Plan.BulkBytes)
	g := Group{ID: "bulk", Title: "Bulk " + size + " on one stream",
		About: fmt.Sprintf("Sender and receiver in one fresh child process per repetition; the sender writes %s in %s writes "+
			"(weida and quic-go: one stream; NATS: %s messages paced by the receiver's acknowledgements, 8 MiB window; "+
			"ZeroMQ: PUSH/PULL messages of %s, its default high-water marks), the receiver reads it to the end with a 64 KiB buffer. "+
			"Peak RSS is the child's largest resident set during the transfer (both ends and the runtime; VmHWM, reset after set-up); "+
			"base RSS is its resident set after set-up. "+
			"Figures are medians over %d repetitions.",
			size, sizeLabel(int64(r.Plan.BulkChunk)), sizeLabel(int64(r.Plan.BulkChunk)), sizeLabel(int64(r.Plan.BulkChunk)), r.Plan.BulkReps),
		Metrics: []Metric{
			{Key: "mib_per_s", Label: "throughput", Unit: "MiB/s", Headline: true},
			{Key: "peak_rss_mib", Label: "peak RSS", Unit: "MiB", LowerIsBetter: true, Headline: true},
			{Key: "base_rss_mib", Label: "base RSS", Unit: "MiB", LowerIsBetter: true},
			{Key: "cpu_s", Label: "CPU (both ends)", Unit: "s", LowerIsBetter: true},
		}}
	spec := caseSpec{id: "bulk/" + size, label: size, param: float64(r.Plan.BulkBytes)}
	r.runGroup(ctx, &g, []caseSpec{spec}, r.Plan.BulkReps, freshPerRep, func(ctx context.Context, s system.System, c caseSpec) (session, error) {
		return &bulkSession{r: r, sys: s, spec: c}, nil
	})
	return g
}

// bulkSession runs each repetition in its own child.
type bulkSession struct {
	r    *Runner
	sys  system.System
	spec caseSpec
}

// bulkChildResult is what the bulk child reports.
type bulkChildResult struct {
	Seconds  float64 `json:"seconds"`
	Bytes    int64   `json:"bytes"`
	BaseRSS  int64   `json:"base_rss"`
	PeakRSS  int64   `json:"peak_rss"`
	CPUNanos int64   `json:"cpu_ns"`
}

func (s *bulkSession) rep(ctx context.Context, _ int) (measurement, error) {
	args := []string{"bulk", "-system", s.sys.Name(), "-bytes", strconv.FormatInt(s.r.Plan.BulkBytes, 10),
		"-chunk", strconv.Itoa(s.r.Plan.BulkChunk)}
	args = append(args, s.r.childProfileArgs(s.spec.id, s.sys.Name())...)
	child, err := startChild(s.r.Child(args...), nil)
	if err != nil {
		return measurement{}, err
	}
	var res bulkChildResult
	err = child.expectResult(ctx, &res)
	if ferr := child.finish(ctx); err == nil {
		err = ferr
	}
	if err != nil {
		return measurement{}, err
	}
	return measurement{figures: map[string]float64{
		"mib_per_s":    mib(float64(res.Bytes)) / res.Seconds,
		"peak_rss_mib": mib(float64(res.PeakRSS)),
		"base_rss_mib": mib(float64(res.BaseRSS)),
		"cpu_s":        float64(res.CPUNanos) / 1e9,
	}}, nil
}

func (s *bulkSession) close() error { return nil }

// bulkChild is the child side: it sets both ends up, transfers, and
// reports.
func bulkChild(ctx context.Context, sys system.System, total int64, chunk int, io *childIO) error {
	type outcome struct {
		n   int64
		err error
	}
	ended := make(chan outcome, 1)
	sink, err := sys.StartBulkSink(ctx, func(n int64, err error) {
		select {
		case ended <- outcome{n, err}:
		default: // only the first report counts
		}
	})
	if err != nil {
		return err
	}
	defer sink.Close()
	snd, err := sys.DialBulk(ctx, sink.Addr())
	if err != nil {
		return err
	}
	defer snd.Close()
	buf := make([]byte, chunk)
	base, err := settledRSS()
	if err != nil {
		return err
	}
	if err := resetPeakRSS(); err != nil {
		return err
	}
	cpu0, err := cpuTime()
	if err != nil {
		return err
	}
	start := time.Now()
	if err := snd.Send(ctx, total, buf); err != nil {
		return fmt.Errorf("sending: %w", err)
	}
	var got outcome
	select {
	case got = <-ended:
	case <-ctx.Done():
		return fmt.Errorf("waiting for the receiver: %w", ctx.Err())
	}
	elapsed := time.Since(start)
	if got.err != nil || got.n != total {
		return fmt.Errorf("the receiver read %d of %d bytes: %v", got.n, total, got.err)
	}
	cpu1, err := cpuTime()
	if err != nil {
		return err
	}
	peak, err := peakRSS()
	if err != nil {
		return err
	}
	return io.result(bulkChildResult{Seconds: elapsed.Seconds(), Bytes: total, BaseRSS: base, PeakRSS: peak,
		CPUNanos: int64(cpu1 - cpu0)})
}
