package weida_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/guarantee"
)

// logLine is one record a logRecorder kept, its attributes as text.
type logLine struct {
	level slog.Level
	msg   string
	attrs map[string]string
}

// logRecorder is a slog.Handler that keeps every record at or above its
// level and wakes waiters at each one.
type logRecorder struct {
	level slog.Level
	mu    sync.Mutex
	lines []logLine
	added chan struct{} // closed and replaced at every record
}

func newLogRecorder(level slog.Level) *logRecorder {
	return &logRecorder{level: level, added: make(chan struct{})}
}

func (r *logRecorder) Enabled(_ context.Context, l slog.Level) bool { return l >= r.level }
func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler           { return r }
func (r *logRecorder) WithGroup(string) slog.Handler                { return r }

func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	line := logLine{level: rec.Level, msg: rec.Message, attrs: map[string]string{}}
	rec.Attrs(func(a slog.Attr) bool {
		line.attrs[a.Key] = a.Value.String()
		return true
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, line)
	close(r.added)
	r.added = make(chan struct{})
	return nil
}

// wait returns the first record that match accepts, waiting for it.
func (r *logRecorder) wait(t *testing.T, ctx context.Context, what string, match func(logLine) bool) logLine {
	t.Helper()
	for {
		r.mu.Lock()
		for _, l := range r.lines {
			if match(l) {
				r.mu.Unlock()
				return l
			}
		}
		added := r.added
		r.mu.Unlock()
		select {
		case <-added:
		case <-ctx.Done():
			t.Fatalf("no log line %s; got %v", what, r.snapshot())
		}
	}
}

func (r *logRecorder) snapshot() []logLine {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]logLine(nil), r.lines...)
}

func message(msg string) func(logLine) bool { return func(l logLine) bool { return l.msg == msg } }

// TestLoggerSeesConnectionsOpenAndClose: over real QUIC, both runtimes log
// the connection opened with the peer and the remote address, and the
// accepting side logs its close with the reason; pushes log nothing at Info.
func TestLoggerSeesConnectionsOpenAndClose(t *testing.T) {
	ctx := ctxFor(t)
	srvLog, cliLog := newLogRecorder(slog.LevelInfo), newLogRecorder(slog.LevelInfo)
	srv := runtimeWith(t, weida.Config{Logger: slog.New(srvLog)})
	b := bindLoopback(t, srv)
	puller, err := b.Puller("/logs")
	if err != nil {
		t.Fatal(err)
	}
	cli := runtimeWith(t, weida.Config{Logger: slog.New(cliLog)})
	pusher := cli.Pusher(weida.TrustByAddress())
	if err := pusher.Connect(ctx, b.URL("/logs")); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if err := pusher.Send(ctx, fmt.Appendf(nil, "m%d", i)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := puller.Recv(ctx, 64); err != nil {
			t.Fatal(err)
		}
	}

	opened := cliLog.wait(t, ctx, "of the dialled connection opening", message("weida: connection opened"))
	if opened.level != slog.LevelInfo || opened.attrs["peer"] != b.Fingerprint().String() ||
		opened.attrs["side"] != "dialled" || opened.attrs["remote"] != b.LocalAddr() || opened.attrs["path"] != "/logs" {
		t.Fatalf("dialler's line %+v, want Info naming %s at %s", opened, b.Fingerprint(), b.LocalAddr())
	}
	accepted := srvLog.wait(t, ctx, "of the accepted connection opening", message("weida: connection opened"))
	if accepted.attrs["peer"] != "anonymous" || accepted.attrs["side"] != "accepted" || accepted.attrs["remote"] == "" {
		t.Fatalf("listener's line %+v, want an anonymous accepted peer with its address", accepted)
	}

	if err := pusher.Close(); err != nil {
		t.Fatal(err)
	}
	closed := srvLog.wait(t, ctx, "of the accepted connection closing", message("weida: connection closed"))
	if closed.attrs["remote"] != accepted.attrs["remote"] || !strings.Contains(closed.attrs["reason"], "the peer closed") {
		t.Fatalf("close line %+v, want the peer's close of %s", closed, accepted.attrs["remote"])
	}
	for _, log := range [][]logLine{srvLog.snapshot(), cliLog.snapshot()} {
		if len(log) > 2 {
			t.Fatalf("50 pushes wrote %d lines at Info, want only open and close: %v", len(log), log)
		}
	}
}

// TestLoggerNamesTheDimensionOfAFailedNegotiation: a client requiring
// ordering of a server that offers none is logged at Warn on both sides,
// with the dimension named.
func TestLoggerNamesTheDimensionOfAFailedNegotiation(t *testing.T) {
	ctx := ctxFor(t)
	srvLog, cliLog := newLogRecorder(slog.LevelInfo), newLogRecorder(slog.LevelInfo)
	srv := runtimeWith(t, weida.Config{Logger: slog.New(srvLog)})
	b := bindLoopback(t, srv)
	if _, err := b.Puller("/logs"); err != nil {
		t.Fatal(err)
	}
	cli := runtimeWith(t, weida.Config{Logger: slog.New(cliLog),
		Guarantees: guarantee.Set{Ordering: guarantee.PerProducerDetect}})
	pusher := cli.Pusher(weida.TrustByAddress(), weida.WithReconnect(weida.ReconnectPolicy{Never: true}))
	if err := pusher.Connect(ctx, b.URL("/logs")); !errors.Is(err, weida.ErrNegotiation) {
		t.Fatalf("connect: %v, want Negotiation", err)
	}
	for side, log := range map[string]*logRecorder{"listener": srvLog, "dialler": cliLog} {
		l := log.wait(t, ctx, "of the failed negotiation on the "+side, message("weida: negotiation failed"))
		if l.level != slog.LevelWarn || l.attrs["dimension"] != "ordering" || !strings.Contains(l.attrs["error"], "ordering") {
			t.Fatalf("%s logged %+v, want Warn naming ordering", side, l)
		}
	}
}

// TestLoggerBoundsRefusalsAtDebug: a request to a path nobody serves is
// logged at Debug with the code; at Info it is not logged at all.
func TestLoggerBoundsRefusalsAtDebug(t *testing.T) {
	ctx := ctxFor(t)
	debug, info := newLogRecorder(slog.LevelDebug), newLogRecorder(slog.LevelInfo)
	srv := runtimeWith(t, weida.Config{Logger: slog.New(slog.NewMultiHandler(debug, info))})
	b := bindLoopback(t, srv)
	cli := testRuntime(t)
	requester := cli.Requester(weida.TrustByAddress())
	if err := requester.Connect(ctx, b.URL("/nobody")); err != nil {
		t.Fatal(err)
	}
	if _, err := requester.Request(ctx, []byte("x"), 64); !errors.Is(err, weida.ErrUnknownEndpoint) {
		t.Fatalf("request: %v, want UnknownEndpoint", err)
	}
	l := debug.wait(t, ctx, "of the refusal", message("weida: transfer refused"))
	if l.level != slog.LevelDebug || l.attrs["code"] != "UNKNOWN_ENDPOINT" || l.attrs["endpoint"] != "/nobody" {
		t.Fatalf("refusal line %+v, want Debug UNKNOWN_ENDPOINT at /nobody", l)
	}
	for _, l := range info.snapshot() {
		if l.msg == "weida: transfer refused" {
			t.Fatalf("a refusal was logged at Info: %+v", l)
		}
	}
}
