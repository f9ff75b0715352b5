package weida_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// Over a unix socket a write can wait where QUIC's never does: the kernel
// holds a stream's bytes in a socket buffer of its own, and once a peer
// that does not read filled it, even the one-byte FIN waits for room. Every
// call below must still return once its context ends. Before the fix,
// Request, Survey and Reply waited in their FIN for as long as the peer
// did not read, and so did a Send whose payload had just fit (and, later,
// a SendReporting's, which stopped its watcher before the FIN), and a Replier.Accept or a reply's
// Recv whose request was still arriving never returned at all.

// finWaitSizes are payload sizes around the default socket send buffer:
// some of them fit it while the FIN that follows does not, whatever the
// chunk overhead, so the FIN's wait is among what they exercise.
func finWaitSizes(t *testing.T) []int {
	buf := 212992 // Linux's net.core.wmem_default
	if b, err := os.ReadFile("/proc/sys/net/core/wmem_default"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			buf = n
		}
	}
	var sizes []int
	for n := buf - 16<<10; n <= buf+48<<10; n += 8 << 10 {
		sizes = append(sizes, n)
	}
	return sizes
}

// returnsAfterItsContext runs call under a context that ends after 100 ms
// and fails the test unless call returns within 20 s of that.
func returnsAfterItsContext(t *testing.T, what string, call func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- call(ctx) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s stayed blocked long after its context ended", what)
	}
}

func TestUnixSendsReturnWhenTheirContextEndsThoughThePeerDoesNotRead(t *testing.T) {
	for _, n := range finWaitSizes(t) {
		payload := reqrepPattern(n)
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			t.Run("Send", func(t *testing.T) {
				b := bindTestUnix(t, testRuntime(t))
				if _, err := b.Puller("/p"); err != nil { // never read
					t.Fatal(err)
				}
				push := pushpullPusher(t, testRuntime(t), nil, b.URL("/p"))
				returnsAfterItsContext(t, "Pusher.Send", func(ctx context.Context) error { return push.Send(ctx, payload) })
			})
			t.Run("SendReporting", func(t *testing.T) {
				b := bindTestUnix(t, testRuntime(t))
				if _, err := b.Puller("/p"); err != nil { // never read
					t.Fatal(err)
				}
				push := pushpullPusher(t, testRuntime(t), nil, b.URL("/p"))
				returnsAfterItsContext(t, "Pusher.SendReporting", func(ctx context.Context) error {
					_, err := push.SendReporting(ctx, payload, weida.ReportOrder{Levels: []uint64{weida.Processed}})
					return err
				})
			})
			t.Run("PairSend", func(t *testing.T) {
				b := bindTestUnix(t, testRuntime(t))
				bound, err := b.Pair("/pair")
				if err != nil {
					t.Fatal(err)
				}
				dialling := pairDial(t, b.URL("/pair"))
				if err := dialling.Send(ctxFor(t), []byte("first")); err != nil { // it claims the bound end
					t.Fatal(err)
				}
				pairExpect(t, bound, "first") // and then reads no more
				returnsAfterItsContext(t, "Paired.Send", func(ctx context.Context) error { return bound.Send(ctx, payload) })
			})
			t.Run("Request", func(t *testing.T) {
				b := bindTestUnix(t, testRuntime(t))
				if _, err := b.Replier("/r"); err != nil { // never accepts
					t.Fatal(err)
				}
				req := reqrepRequester(t, b.URL("/r"))
				returnsAfterItsContext(t, "Requester.Request", func(ctx context.Context) error {
					_, err := req.Request(ctx, payload, 1<<20)
					return err
				})
			})
			t.Run("Survey", func(t *testing.T) {
				b := bindTestUnix(t, testRuntime(t))
				if _, err := b.Respondent("/s"); err != nil { // never accepts
					t.Fatal(err)
				}
				s := testRuntime(t).Surveyor(weida.TrustByAddress())
				t.Cleanup(func() { _ = s.Close() })
				if err := s.Connect(ctxFor(t), b.URL("/s")); err != nil {
					t.Fatal(err)
				}
				returnsAfterItsContext(t, "Surveyor.Survey", func(ctx context.Context) error {
					_, err := s.Survey(ctx, payload, time.Minute, 1<<20)
					return err
				})
			})
			t.Run("Reply", func(t *testing.T) {
				b := bindTestUnix(t, testRuntime(t))
				rep, err := b.Replier("/r")
				if err != nil {
					t.Fatal(err)
				}
				req := reqrepRequester(t, b.URL("/r"))
				out, _, err := req.Open(ctxFor(t), weida.TransferMeta{}) // its reply is never read
				if err != nil {
					t.Fatal(err)
				}
				if _, err := out.Write([]byte("q")); err != nil {
					t.Fatal(err)
				}
				if _, err := out.Finish(); err != nil {
					t.Fatal(err)
				}
				r, err := rep.Accept(ctxFor(t), 1<<20)
				if err != nil {
					t.Fatal(err)
				}
				returnsAfterItsContext(t, "Request.Reply", func(ctx context.Context) error { return r.Reply(ctx, payload) })
			})
		})
	}
}

func TestUnixReadsOfARequestStillArrivingReturnWhenTheirContextEnds(t *testing.T) {
	openPartial := func(t *testing.T, b *weida.Binding) *weida.ReplyStream {
		req := reqrepRequester(t, b.URL("/r"))
		out, reply, err := req.Open(ctxFor(t), weida.TransferMeta{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(out.Cancel)
		if _, err := out.Write([]byte("partial request")); err != nil { // no FIN
			t.Fatal(err)
		}
		return reply
	}
	t.Run("Accept", func(t *testing.T) {
		b := bindTestUnix(t, testRuntime(t))
		rep, err := b.Replier("/r")
		if err != nil {
			t.Fatal(err)
		}
		openPartial(t, b)
		returnsAfterItsContext(t, "Replier.Accept", func(ctx context.Context) error {
			_, err := rep.Accept(ctx, 1<<20)
			return err
		})
	})
	t.Run("ReplyRecv", func(t *testing.T) {
		b := bindTestUnix(t, testRuntime(t))
		if _, err := b.Replier("/r"); err != nil { // never accepts
			t.Fatal(err)
		}
		reply := openPartial(t, b)
		returnsAfterItsContext(t, "ReplyStream.Recv", func(ctx context.Context) error {
			_, err := reply.Recv(ctx)
			return err
		})
	})
}
