package weida_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	weida "github.com/weida-go/weida/core"
)

// streamedEchoSize is the payload of BenchmarkStreamedEcho: large next to
// every window (1 MiB stream, 16 MiB connection), so nothing can be held
// whole; peak RSS shows it.
const streamedEchoSize = 256 << 20

// BenchmarkStreamedEcho streams 256 MiB to an echo and reads it back
// concurrently, on weida (Requester.Open + Replier.AcceptStream) and on raw
// quic-go, reporting MiB/s (one direction) and the process's peak RSS growth
// during the run (VmHWM, reset through /proc/self/clear_refs).
func BenchmarkStreamedEcho(b *testing.B) {
	chunk := bytes.Repeat([]byte("weida streams "), (64<<10)/14)
	b.Run("weida", func(b *testing.B) {
		echo := weidaStreamEcho(b)
		runStreamedEcho(b, func(ctx context.Context) (int64, error) { return echo(ctx, chunk) })
	})
	b.Run("rawquic", func(b *testing.B) {
		pair := establishRaw(b, false)
		pair.ServeStreamEcho()
		runStreamedEcho(b, func(ctx context.Context) (int64, error) { return pair.StreamEcho(ctx, chunk, streamedEchoSize) })
	})
}

func runStreamedEcho(b *testing.B, echo func(context.Context) (int64, error)) {
	b.SetBytes(streamedEchoSize)
	resetPeakRSS()
	base := peakRSS()
	b.ResetTimer()
	for range b.N {
		got, err := echo(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if got != streamedEchoSize {
			b.Fatalf("echoed %d of %d bytes", got, streamedEchoSize)
		}
	}
	b.StopTimer()
	if base > 0 {
		b.ReportMetric(float64(peakRSS()-base)/(1<<20), "peak-RSS-growth-MiB")
	}
}

// weidaStreamEcho serves a streamed echo with weida and returns a client
// that echoes streamedEchoSize bytes of chunk through it.
func weidaStreamEcho(b *testing.B) func(context.Context, []byte) (int64, error) {
	server := newRuntime(b)
	id, err := weida.GenerateIdentity()
	if err != nil {
		b.Fatal(err)
	}
	binding, err := server.Listener().BindQUIC("127.0.0.1:0", id)
	if err != nil {
		b.Fatal(err)
	}
	rep, err := server.Listener().Replier("/echo")
	if err != nil {
		b.Fatal(err)
	}
	go func() {
		for {
			ex, err := rep.AcceptStream(context.Background())
			if err != nil {
				return
			}
			go func() {
				out, err := ex.Reply(weida.TransferMeta{})
				if err != nil {
					return
				}
				if _, err := io.CopyBuffer(out, ex.Request(), make([]byte, 64<<10)); err != nil {
					out.Cancel()
					return
				}
				_, _ = out.Finish()
			}()
		}
	}()
	req := newRuntime(b).Requester(weida.TrustByAddress())
	if err := req.Connect(context.Background(), binding.URL("/echo")); err != nil {
		b.Fatal(err)
	}
	return func(ctx context.Context, chunk []byte) (int64, error) {
		out, reply, err := req.Open(ctx, weida.TransferMeta{})
		if err != nil {
			return 0, err
		}
		written := make(chan error, 1)
		go func() {
			var sent int64
			for sent < streamedEchoSize {
				n := min(int64(len(chunk)), streamedEchoSize-sent)
				if _, err := out.Write(chunk[:n]); err != nil {
					written <- err
					return
				}
				sent += n
			}
			_, err := out.Finish()
			written <- err
		}()
		in, err := reply.Recv(ctx)
		if err != nil {
			return 0, err
		}
		got, rerr := io.CopyBuffer(io.Discard, in, make([]byte, 64<<10))
		if werr := <-written; werr != nil {
			return got, werr
		}
		return got, rerr
	}
}

// resetPeakRSS resets the kernel's peak-RSS mark (VmHWM) for this process.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS is VmHWM in bytes, or 0 where /proc is unavailable.
func peakRSS() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
