package harness

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// The bindings' workloads' message sizes, as bench.py and bench.js send them.
const (
	bindingRequestSize = 1 << 10
	bindingPushSize    = 64
)

// goClient is the side of a system the Go surface uses: weida's, whose
// clients are the Go API's Requester and Pusher in runtimes of their own
// with the default Config.
type goClient interface {
	DialEcho(ctx context.Context, addr string, maxSize int) (system.Requester, error)
	DialSource(ctx context.Context, addr string) (system.Sender, error)
}

// measureGoClient is the Go twin of a script's --server process run: it
// starts an echo and a sink process of cli, and measures sys's client
// against them as the scripts measure theirs: ops round trips, then ops
// pushes, each after one untimed warm-up.
func measureGoClient(ctx context.Context, sys goClient, cli string, ops int) (map[figureKey]map[string]float64, error) {
	echo, err := startServe(ctx, cli, "--echo", "/echo", nil)
	if err != nil {
		return nil, err
	}
	arrived := newCounter(bindingPushSize)
	sink, err := startServe(ctx, cli, "--sink", "/sink", arrived)
	if err != nil {
		return nil, errors.Join(err, echo.close())
	}
	figures := map[figureKey]map[string]float64{}
	reqrep, err := goRoundTrips(ctx, sys, echo.url, ops)
	if err == nil {
		figures[figureKey{goSurface, "reqrep_1k"}] = reqrep
		var push map[string]float64
		if push, err = goPushes(ctx, sys, sink.url, arrived, ops); err == nil {
			figures[figureKey{goSurface, "push_64b"}] = push
		}
	}
	if err = errors.Join(err, echo.close(), sink.close()); err != nil {
		return nil, err
	}
	return figures, nil
}

// goRoundTrips times ops 1 KiB round trips, one after another, on one
// connection established before the clock starts.
func goRoundTrips(ctx context.Context, sys goClient, url string, ops int) (figures map[string]float64, err error) {
	req, err := sys.DialEcho(ctx, url, bindingRequestSize)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, req.Close()) }()
	payload := make([]byte, bindingRequestSize)
	if err := req.Request(ctx, payload); err != nil { // warm
		return nil, fmt.Errorf("warming up: %w", err)
	}
	times := make([]time.Duration, ops)
	start := time.Now()
	for i := range times {
		began := time.Now()
		if err := req.Request(ctx, payload); err != nil {
			return nil, err
		}
		times[i] = time.Since(began)
	}
	return timedFigures(times, time.Since(start)), nil
}

// goPushes times ops 64 B pushes, each send returned before the next,
// until the sink process has written them all (arrived counts what it
// wrote); each send is timed too, as bench.js times them.
func goPushes(ctx context.Context, sys goClient, url string, arrived *counter, ops int) (figures map[string]float64, err error) {
	snd, err := sys.DialSource(ctx, url)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, snd.Close()) }()
	payload := make([]byte, bindingPushSize)
	if err := snd.Send(ctx, payload); err != nil {
		return nil, fmt.Errorf("warming up: %w", err)
	}
	if err := arrived.await(ctx, 1); err != nil {
		return nil, fmt.Errorf("warming up: %w", err)
	}
	times := make([]time.Duration, ops)
	start := time.Now()
	for i := range times {
		began := time.Now()
		if err := snd.Send(ctx, payload); err != nil {
			return nil, err
		}
		times[i] = time.Since(began)
	}
	if err := arrived.await(ctx, int64(1+ops)); err != nil {
		return nil, fmt.Errorf("the sink process: %w", err)
	}
	return timedFigures(times, time.Since(start)), nil
}

// timedFigures are the median and p99 of times and the rate of the
// len(times) operations that took elapsed, in the scripts' keys.
func timedFigures(times []time.Duration, elapsed time.Duration) map[string]float64 {
	sorted := sortedDurations(times)
	return map[string]float64{
		"p50_us":     micros(percentile(sorted, 0.5)),
		"p99_us":     micros(percentile(sorted, 0.99)),
		"msgs_per_s": float64(len(times)) / elapsed.Seconds(),
	}
}
