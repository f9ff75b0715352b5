package weida_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	weida "github.com/weida-go/weida/core"
)

// appendCases are payloads that take each path of collectAppend: whole in
// the first read, a stated length (Send states it), and, streamed in
// pieces, no stated length at all, growing past the room first made.
var appendCases = []struct {
	name     string
	size     int
	streamed bool
}{
	{"whole in the first read", 64, false},
	{"stated length", 100 << 10, false},
	{"unstated, grown by doubling", 150 << 10, true},
}

// lent is a buffer lent to an *Append receive: a prefix that must be kept
// and room for every case's payload.
func lent() []byte {
	b := make([]byte, 3, 256<<10)
	copy(b, "pre")
	return b
}

// wantAppended checks got is dst's prefix followed by want, in dst's array
// when dst had the room (nothing allocated for the payload).
func wantAppended(t *testing.T, got, dst, want []byte) {
	t.Helper()
	if !bytes.Equal(got[:len(dst)], dst) || !bytes.Equal(got[len(dst):], want) {
		t.Fatalf("got %d bytes, want the %d-byte prefix and the %d-byte payload", len(got), len(dst), len(want))
	}
	if cap(dst)-len(dst) >= len(want) && &got[0] != &dst[:1][0] {
		t.Fatal("the payload was not read into the lent buffer, which had the room")
	}
}

func TestPullerRecvAppendReadsIntoTheLentBuffer(t *testing.T) {
	push, pull := lenPushPull(t)
	for _, c := range appendCases {
		t.Run(c.name, func(t *testing.T) {
			ctx := ctxFor(t)
			payload := reqrepPattern(c.size)
			if err := pushAppendCase(ctx, push, payload, c.streamed); err != nil {
				t.Fatal(err)
			}
			dst := lent()
			got, _, err := pull.RecvAppend(ctx, dst, int64(c.size))
			if err != nil {
				t.Fatal(err)
			}
			wantAppended(t, got, dst, payload)
		})
	}
	t.Run("a small buffer grows", func(t *testing.T) {
		ctx := ctxFor(t)
		payload := reqrepPattern(150 << 10)
		if err := pushAppendCase(ctx, push, payload, true); err != nil {
			t.Fatal(err)
		}
		dst := []byte("pre")
		got, _, err := pull.RecvAppend(ctx, dst, int64(len(payload)))
		if err != nil {
			t.Fatal(err)
		}
		wantAppended(t, got, dst, payload)
	})
}

// The ceiling applies to the payload, not to what dst already holds: a
// payload at the ceiling is taken, one byte above it refused, on every path.
func TestRecvAppendCeilingIsThePayloads(t *testing.T) {
	push, pull := lenPushPull(t)
	for _, c := range appendCases {
		t.Run(c.name, func(t *testing.T) {
			ctx := ctxFor(t)
			payload := reqrepPattern(c.size)
			for _, ceiling := range []int{c.size, c.size - 1} {
				if err := pushAppendCase(ctx, push, payload, c.streamed); err != nil {
					t.Fatal(err)
				}
				got, _, err := pull.RecvAppend(ctx, lent(), int64(ceiling))
				if ceiling < c.size {
					reqrepWantKind(t, "a payload above the ceiling", err, weida.KindLimitExceeded)
					continue
				}
				if err != nil {
					t.Fatalf("a payload at the ceiling: %v", err)
				}
				wantAppended(t, got, []byte("pre"), payload)
			}
		})
	}
}

func TestRequestAppendAndAcceptAppendReadIntoTheLentBuffers(t *testing.T) {
	_, b, rep := reqrepServe(t, "/echo")
	req := reqrepRequester(t, b.URL("/echo"))
	for _, c := range appendCases[:2] { // a whole request states its length
		t.Run(c.name, func(t *testing.T) {
			payload := reqrepPattern(c.size)
			accepted := make(chan error, 1)
			go func() {
				ctx := ctxFor(t)
				dst := lent()
				r, err := rep.AcceptAppend(ctx, dst, int64(c.size))
				if err != nil {
					accepted <- err
					return
				}
				if !bytes.Equal(r.Payload()[:3], []byte("pre")) || !bytes.Equal(r.Payload()[3:], payload) || &r.Payload()[0] != &dst[0] {
					_ = r.Refuse() // so the request ends at once
					accepted <- errors.New("the request was not appended to the lent buffer")
					return
				}
				accepted <- r.Reply(ctx, r.Payload()[3:])
			}()
			dst := lent()
			got, err := req.RequestAppend(ctxFor(t), dst, payload, int64(c.size))
			if err != nil {
				t.Fatal(err)
			}
			wantAppended(t, got, dst, payload)
			if err := <-accepted; err != nil {
				t.Fatal(err)
			}
		})
	}
}

// pushAppendCase sends payload whole (its length stated) or streamed in
// 10 KiB writes with no length stated.
func pushAppendCase(ctx context.Context, push *weida.Pusher, payload []byte, streamed bool) error {
	if !streamed {
		return push.Send(ctx, payload)
	}
	out, err := push.Open(ctx, weida.TransferMeta{})
	if err != nil {
		return err
	}
	for rest := payload; len(rest) > 0; {
		n := min(len(rest), 10<<10)
		if _, err := out.Write(rest[:n]); err != nil {
			return err
		}
		rest = rest[n:]
	}
	_, err = out.Finish()
	return err
}

func TestSubscriberRecvAppendReadsIntoTheLentBuffer(t *testing.T) {
	srv := pubsubServe(t, weida.Config{})
	sub := pubsubSubscribe(t, srv, "t")
	for _, c := range appendCases[:2] { // Publish states the length
		t.Run(c.name, func(t *testing.T) {
			payload := reqrepPattern(c.size)
			if n, err := srv.pub.Publish("t", payload); err != nil || n != 1 {
				t.Fatalf("publish: %d copies, %v", n, err)
			}
			dst := lent()
			got, meta, err := sub.RecvAppend(ctxFor(t), dst, int64(c.size))
			if err != nil {
				t.Fatal(err)
			}
			wantAppended(t, got, dst, payload)
			if topic, ok := meta.Topic(); !ok || topic != "t" {
				t.Fatalf("topic %q (%v), want t", topic, ok)
			}
		})
	}
}

// math.MaxInt64 is "no ceiling" (the C ABI's SIZE_MAX): every receive that
// collects a payload takes one of any size with it, on every transport,
// whether the payload came whole in the first read or not. (The scratch
// read sized itself by the ceiling plus one, which overflowed: a payload
// of 2-16 KiB over QUIC, or of any size over a local transport, panicked
// the receiving process.)
func TestAReceiveWithoutCeilingTakesEveryPayload(t *testing.T) {
	const noCeiling = math.MaxInt64
	for _, tr := range transports {
		for _, size := range []int{10, 3000, 20 << 10} {
			t.Run(fmt.Sprintf("%s/%d", tr.name, size), func(t *testing.T) {
				payload := reqrepPattern(size)
				srv := testRuntime(t)
				b := tr.bind(t, srv)
				pull, err := b.Puller("/nc")
				if err != nil {
					t.Fatal(err)
				}
				rep, err := b.Replier("/echo")
				if err != nil {
					t.Fatal(err)
				}
				answered := reqrepAnswer(t, rep, func(ctx context.Context, rep *weida.Replier) error {
					req, err := rep.Accept(ctx, noCeiling)
					if err != nil {
						return err
					}
					if !bytes.Equal(req.Payload(), payload) {
						return fmt.Errorf("a request of %d bytes arrived, want %d", len(req.Payload()), size)
					}
					return req.Reply(ctx, payload)
				})
				push := pushpullPusher(t, testRuntime(t), nil, b.URL("/nc"))
				if err := push.Send(ctxFor(t), payload); err != nil {
					t.Fatal(err)
				}
				got, _, err := pull.Recv(ctxFor(t), noCeiling)
				if err != nil || !bytes.Equal(got, payload) {
					t.Fatalf("Recv: %d bytes, %v; want the %d sent", len(got), err, size)
				}
				reply, err := reqrepRequester(t, b.URL("/echo")).Request(ctxFor(t), payload, noCeiling)
				if err != nil || !bytes.Equal(reply, payload) {
					t.Fatalf("Request: a reply of %d bytes, %v; want %d", len(reply), err, size)
				}
				if err := <-answered; err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}
