package weida_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

const fanoutChunk = 64 << 10

// fanoutPayload is n chunks whose bytes differ by position, so a lost,
// repeated or reordered chunk cannot go unnoticed.
func fanoutPayload(n int) []byte {
	p := make([]byte, n*fanoutChunk)
	for i := range p {
		p[i] = byte(i*7 + i/fanoutChunk)
	}
	return p
}

// fanoutOpen opens a streamed publication on topic and fails the test on error.
func fanoutOpen(t *testing.T, pub *weida.Publisher, topic string) *weida.FanOut {
	t.Helper()
	f, err := pub.Open(topic)
	if err != nil {
		t.Fatalf("open %q: %v", topic, err)
	}
	return f
}

func TestFanOutStreamsAPayloadLargerThanTheBudget(t *testing.T) {
	srv := pubsubServe(t, weida.Config{})
	sub := pubsubSubscribe(t, srv, "files.#")
	payload := fanoutPayload(160) // 10 MiB against the default 8 MiB budget

	type received struct {
		body []byte
		meta weida.IncomingMeta
		err  error
	}
	got := make(chan received, 1)
	go func() {
		body, meta, err := sub.Recv(ctxFor(t), 16<<20)
		got <- received{body, meta, err}
	}()

	f := fanoutOpen(t, srv.pub, "files.big")
	if f.Topic() != "files.big" || f.Subscribers() != 1 {
		t.Fatalf("topic %q, subscribers %d", f.Topic(), f.Subscribers())
	}
	for off := 0; off < len(payload); off += fanoutChunk {
		if left, err := f.WriteWithin(ctxFor(t), payload[off:off+fanoutChunk], 10*time.Second); left != 1 || err != nil {
			t.Fatalf("chunk at %d: %d left, %v", off, left, err)
		}
	}
	if n, err := f.Finish(); n != 1 || err != nil {
		t.Fatalf("finish: %d, %v; want 1", n, err)
	}
	r := <-got
	if r.err != nil || !bytes.Equal(r.body, payload) {
		t.Fatalf("received %d bytes (%v), want the %d sent, byte-exact", len(r.body), r.err, len(payload))
	}
	if topic, _ := r.meta.Topic(); topic != "files.big" {
		t.Fatalf("topic %q", topic)
	}
	if _, ok := r.meta.ContentLen(); ok {
		t.Fatal("a streamed copy claims a content length nobody gave")
	}
	if srv.pub.Dropped() != 0 {
		t.Fatalf("dropped %d", srv.pub.Dropped())
	}
}

// A subscriber that stops reading fills its stream window, then its 8 MiB
// budget; from then on it has no room and loses its copy, while the other
// subscriber, reading along, gets every byte.
func TestFanOutDropsOnlyTheStalledCopy(t *testing.T) {
	writers := []struct {
		name  string
		write func(*weida.FanOut, []byte) (int, error)
	}{
		{"WriteNow", func(f *weida.FanOut, chunk []byte) (int, error) { return f.WriteNow(chunk) }},
		{"WriteWithin", func(f *weida.FanOut, chunk []byte) (int, error) {
			return f.WriteWithin(context.Background(), chunk, 50*time.Millisecond)
		}},
	}
	for _, w := range writers {
		t.Run(w.name, func(t *testing.T) {
			srv := pubsubServe(t, weida.Config{})
			reader := pubsubSubscribe(t, srv, "#")
			stalled := pubsubSubscribe(t, srv, "#")
			payload := fanoutPayload(192) // 12 MiB: past 1 MiB window + 8 MiB budget
			f := fanoutOpen(t, srv.pub, "frames")

			var in *weida.IncomingTransfer
			droppedAt := -1
			for off := 0; off < len(payload); off += fanoutChunk {
				left, err := w.write(f, payload[off:off+fanoutChunk])
				if err != nil {
					t.Fatalf("chunk at %d: %v", off, err)
				}
				if left == 1 && droppedAt < 0 {
					droppedAt = off
				}
				if left != 2 && left != 1 || left == 2 && droppedAt >= 0 {
					t.Fatalf("chunk at %d: %d copies left", off, left)
				}
				if in == nil {
					if in, err = reader.RecvStream(ctxFor(t)); err != nil {
						t.Fatal(err)
					}
				}
				// Read along, so only the stalled subscriber can run out of room.
				chunk := make([]byte, fanoutChunk)
				if _, err := io.ReadFull(in, chunk); err != nil || !bytes.Equal(chunk, payload[off:off+fanoutChunk]) {
					t.Fatalf("reader at %d: %v", off, err)
				}
			}
			if droppedAt < weida.DefaultSubscriberBufferBytes {
				t.Fatalf("the stalled copy was dropped at %d bytes, before window and budget were full", droppedAt)
			}
			if n, err := f.Finish(); n != 1 || err != nil {
				t.Fatalf("finish: %d, %v; want 1", n, err)
			}
			if rest, err := io.ReadAll(in); len(rest) != 0 || err != nil {
				t.Fatalf("reader's end: %d more bytes, %v; want EOF", len(rest), err)
			}
			if got, ok := srv.pub.DroppedOn("frames"); !ok || got != (weida.DropCounts{Total: 1, SubscriberBudget: 1}) {
				t.Fatalf("drops: %+v, %v; want one budget drop", got, ok)
			}

			cut, err := stalled.RecvStream(ctxFor(t))
			if err != nil {
				t.Fatal(err)
			}
			partial, err := io.ReadAll(cut)
			if !errors.Is(err, weida.ErrCanceled) || len(partial) >= len(payload) {
				t.Fatalf("stalled subscriber read %d bytes then %v; want a partial payload ended by Canceled", len(partial), err)
			}
		})
	}
}

func TestFanOutSubscriberSetIsFixedAtOpen(t *testing.T) {
	srv := pubsubServe(t, weida.Config{})
	early := pubsubSubscribe(t, srv, "#")
	f := fanoutOpen(t, srv.pub, "set")
	pubsubSubscribe(t, srv, "#") // too late for this fan-out
	if left, err := f.WriteNow([]byte("for the early one")); left != 1 || err != nil {
		t.Fatalf("write: %d, %v", left, err)
	}
	if n, err := f.Finish(); n != 1 || err != nil {
		t.Fatalf("finish: %d, %v; want 1", n, err)
	}
	if body, _, err := early.Recv(ctxFor(t), 64); err != nil || string(body) != "for the early one" {
		t.Fatalf("early subscriber: %q, %v", body, err)
	}
}

func TestFanOutCancelResetsEveryCopy(t *testing.T) {
	srv := pubsubServe(t, weida.Config{})
	subs := []*weida.Subscriber{pubsubSubscribe(t, srv, "#"), pubsubSubscribe(t, srv, "#")}
	f := fanoutOpen(t, srv.pub, "abandoned")
	half := []byte("the first half")
	if left, err := f.WriteNow(half); left != 2 || err != nil {
		t.Fatalf("write: %d, %v", left, err)
	}
	// Each subscriber holds its copy and has read what was written; a copy
	// reset before its first byte arrived would never reach a subscriber.
	ins := make([]*weida.IncomingTransfer, len(subs))
	for i, sub := range subs {
		in, err := sub.RecvStream(ctxFor(t))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(in, make([]byte, len(half))); err != nil {
			t.Fatal(err)
		}
		ins[i] = in
	}
	f.Cancel()
	reads := []struct {
		name string
		read func(*weida.IncomingTransfer) ([]byte, error)
	}{
		{"ReadAll", func(in *weida.IncomingTransfer) ([]byte, error) { return io.ReadAll(in) }},
		{"Collect", func(in *weida.IncomingTransfer) ([]byte, error) { return in.Collect(1 << 20) }},
	}
	for i, r := range reads {
		if rest, err := r.read(ins[i]); !errors.Is(err, weida.ErrCanceled) {
			t.Fatalf("%s of a canceled copy: %q, %v; want Canceled", r.name, rest, err)
		}
	}
	if srv.pub.Dropped() != 0 {
		t.Fatalf("an application cancel counted %d drops", srv.pub.Dropped())
	}
}

func TestFanOutPublisherCloseResetsUnfinishedCopies(t *testing.T) {
	srv := pubsubServe(t, weida.Config{})
	sub := pubsubSubscribe(t, srv, "#")
	f := fanoutOpen(t, srv.pub, "cut")
	half := []byte("the first half")
	if left, err := f.WriteNow(half); left != 1 || err != nil {
		t.Fatalf("write: %d, %v", left, err)
	}
	in, err := sub.RecvStream(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(in, make([]byte, len(half))); err != nil {
		t.Fatal(err)
	}
	if err := srv.pub.Close(); err != nil {
		t.Fatal(err)
	}
	if rest, err := io.ReadAll(in); !errors.Is(err, weida.ErrCanceled) {
		t.Fatalf("read after the publisher closed: %q, %v; want Canceled", rest, err)
	}
	if _, err := f.WriteNow([]byte("x")); !errors.Is(err, weida.ErrCanceled) {
		t.Fatalf("write after the publisher closed: %v, want Canceled", err)
	}
}

func TestFanOutRefusals(t *testing.T) {
	srv := pubsubServe(t, weida.Config{})
	ctx := ctxFor(t)
	finished := fanoutOpen(t, srv.pub, "nobody")
	if n := finished.Subscribers(); n != 0 {
		t.Fatalf("subscribers %d, want 0", n)
	}
	if left, err := finished.WriteNow([]byte("x")); left != 0 || err != nil {
		t.Fatalf("write to nobody: %d, %v", left, err)
	}
	if n, err := finished.Finish(); n != 0 || err != nil {
		t.Fatalf("finish to nobody: %d, %v", n, err)
	}
	canceled := fanoutOpen(t, srv.pub, "nobody")
	canceled.Cancel()
	open := fanoutOpen(t, srv.pub, "nobody")

	cases := []struct {
		name string
		call func() error
		want error
	}{
		{"zero limit", func() error { _, err := open.WriteWithin(ctx, []byte("x"), 0); return err }, weida.ErrRuntime},
		{"negative limit", func() error { _, err := open.WriteWithin(ctx, []byte("x"), -time.Second); return err }, weida.ErrRuntime},
		{"chunk above the budget", func() error {
			_, err := open.WriteNow(make([]byte, weida.DefaultSubscriberBufferBytes+1))
			return err
		}, weida.ErrLimitExceeded},
		{"write after finish", func() error { _, err := finished.WriteNow([]byte("x")); return err }, weida.ErrNoReply},
		{"write within after finish", func() error { _, err := finished.WriteWithin(ctx, []byte("x"), time.Second); return err }, weida.ErrNoReply},
		{"second finish", func() error { _, err := finished.Finish(); return err }, weida.ErrNoReply},
		{"write after cancel", func() error { _, err := canceled.WriteNow([]byte("x")); return err }, weida.ErrNoReply},
		{"finish after cancel", func() error { _, err := canceled.Finish(); return err }, weida.ErrNoReply},
	}
	for _, c := range cases {
		if err := c.call(); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if err := srv.pub.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.pub.Open("late"); !errors.Is(err, weida.ErrCanceled) {
		t.Fatalf("open after close: %v, want Canceled", err)
	}
}

// A Recv blocked in the middle of a copy returns when its context ends,
// refusing that copy, as Puller.Recv does; the subscriber stays usable.
func TestSubscriberRecvAbandonsAStalledCopyWhenItsContextEnds(t *testing.T) {
	srv := pubsubServe(t, weida.Config{})
	sub := pubsubSubscribe(t, srv, "#")
	f := fanoutOpen(t, srv.pub, "stalled")
	t.Cleanup(f.Cancel)
	if left, err := f.WriteNow([]byte("the first half")); left != 1 || err != nil {
		t.Fatalf("write: %d, %v", left, err)
	}
	// The copy arrives within milliseconds; the deadline then ends the
	// read it is stuck in (the publisher never finishes it).
	ctx, cancel := context.WithTimeout(ctxFor(t), 2*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, _, err := sub.Recv(ctx, 1<<20)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, weida.ErrCanceled) {
			t.Fatalf("Recv of a stalled copy after its context ended: %v, want Canceled", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Recv stayed blocked in a stalled copy long after its context ended")
	}
	pubsubAwait(t, "the publisher to see the copy refused", func() bool {
		left, _ := f.WriteNow([]byte("more"))
		return left == 0
	})
	pubsubPublishPromptly(t, srv.pub, "next", []byte("whole"))
	if got := pubsubRecvTopics(t, sub, 1); got[0] != "next" {
		t.Fatalf("after the abandoned copy the subscriber received %v, want [next]", got)
	}
}
