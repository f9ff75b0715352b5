package weida_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// stalledLimits make a dish that never reads block its radio quickly: 16
// KiB per stream, 64 KiB per connection.
var stalledLimits = weida.Limits{StreamReceiveWindow: 16 << 10, ConnectionReceiveWindow: 64 << 10}

// radioServe binds a radio at /radio under cfg.
func radioServe(t *testing.T, cfg weida.Config) (*weida.Radio, *weida.Binding) {
	t.Helper()
	rt := runtimeWith(t, cfg)
	b := bindLoopback(t, rt)
	r, err := b.Radio("/radio")
	if err != nil {
		t.Fatal(err)
	}
	return r, b
}

// radioDish connects a dish under cfg to b's radio and joins filter with
// opts, returning once the radio counts want dishes.
func radioDish(t *testing.T, cfg weida.Config, r *weida.Radio, b *weida.Binding, filter string, opts weida.JoinOptions, want int, eopts ...weida.EndpointOption) *weida.Dish {
	t.Helper()
	d := runtimeWith(t, cfg).Dish(weida.TrustByAddress(), eopts...)
	t.Cleanup(func() { d.Close() })
	if err := d.Connect(ctxFor(t), b.URL("/radio")); err != nil {
		t.Fatal(err)
	}
	if err := d.Join(ctxFor(t), filter, opts); err != nil {
		t.Fatal(err)
	}
	pubsubAwait(t, "the join to reach the radio", func() bool { return r.DishCount() == want })
	return d
}

// sendSegment writes size bytes to topic in chunks of 4 KiB and finishes;
// it returns how many copies the first chunk reached.
func sendSegment(t *testing.T, r *weida.Radio, topic string, size int, opts weida.SegmentOptions) (*weida.Segment, int) {
	t.Helper()
	s, err := r.Segment(topic, opts)
	if err != nil {
		t.Fatal(err)
	}
	first := -1
	for sent := 0; sent < size; sent += 4 << 10 {
		n, err := s.Write(segmentBytes(s.Number(), min(4<<10, size-sent)))
		if err != nil {
			t.Fatal(err)
		}
		if first < 0 {
			first = n
		}
	}
	if _, err := s.Finish(); err != nil {
		t.Fatal(err)
	}
	return s, first
}

// segmentBytes is a chunk whose bytes name the segment, so a reader can
// tell a whole segment from a mixed one.
func segmentBytes(number uint64, n int) []byte { return bytes.Repeat([]byte{byte('a' + number%26)}, n) }

// recvSegment receives the next message and requires a whole stream segment.
func recvSegment(t *testing.T, d *weida.Dish, size int) weida.DishMessage {
	t.Helper()
	m, err := d.Recv(ctxFor(t), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if m.Kind != weida.DishSegment {
		t.Fatalf("received a %v, want a stream segment", m.Kind)
	}
	if len(m.Payload) != size || !bytes.Equal(m.Payload, segmentBytes(m.Segment, size)) {
		t.Fatalf("segment %d: %d bytes, not the whole %d of it", m.Segment, len(m.Payload), size)
	}
	return m
}

// dropsOf is the radio's drop record of the dish that proved nothing but
// connected from addr-less anonymity: radio tests tell dishes apart by
// which one has drops, so this returns the sum over all dishes.
func dropsOf(r *weida.Radio) weida.DishDrops {
	var sum weida.DishDrops
	for _, d := range r.DishDrops() {
		sum.SubscriberBudget += d.SubscriberBudget
		sum.SubscriberQueue += d.SubscriberQueue
		sum.Superseded += d.Superseded
		sum.Expired += d.Expired
		sum.TooLarge += d.TooLarge
		sum.NoDatagrams += d.NoDatagrams
		sum.LayersCut += d.LayersCut
	}
	return sum
}

// TestRadioLateIsLost is guide_late_is_lost: a stalled dish loses old
// segments to supersession while a fast one gets all ten whole, in order.
func TestRadioLateIsLost(t *testing.T) {
	{
		r, b := radioServe(t, weida.Config{})
		fast := radioDish(t, weida.Config{}, r, b, "voice.#", weida.JoinOptions{}, 1)
		radioDish(t, weida.Config{Limits: stalledLimits}, r, b, "voice.#", weida.JoinOptions{}, 2)
		const segments, size = 10, 24 << 10
		got := make(chan weida.DishMessage, segments)
		go func() {
			for range segments {
				m, err := fast.Recv(ctxFor(t), 1<<20)
				if err != nil {
					return
				}
				got <- m
			}
		}()
		for i := range segments {
			if _, reached := sendSegment(t, r, "voice.a", size, weida.SegmentOptions{}); reached != 2 {
				t.Fatalf("segment %d reached %d dishes, want 2", i, reached)
			}
			// The next segment opens once the fast dish has this one: a dish
			// that keeps up never loses a finished segment to its successor.
			m := <-got
			if m.Segment != uint64(i) || len(m.Payload) != size || !bytes.Equal(m.Payload, segmentBytes(m.Segment, size)) {
				t.Fatalf("fast dish got segment %d (%d bytes), want %d whole", m.Segment, len(m.Payload), i)
			}
		}
		pubsubAwait(t, "the stalled dish to lose a segment to supersession", func() bool { return dropsOf(r).Superseded > 0 })
		if r.Dropped() != dropsOf(r).Superseded {
			t.Fatalf("dropped %d, superseded %d: supersession is the only cause here", r.Dropped(), dropsOf(r).Superseded)
		}
	}
}

func TestRadioGoroutinesEndAtShutdown(t *testing.T) {
	baseline := busGoroutineBaseline(t)
	radioRT := runtimeWith(t, datagramsOn)
	b := bindLoopback(t, radioRT)
	r, err := b.Radio("/radio")
	if err != nil {
		t.Fatal(err)
	}
	dishRT := runtimeWith(t, weida.Config{Datagrams: true, Limits: stalledLimits})
	d := dishRT.Dish(weida.TrustByAddress(), weida.WithReconnect(weida.NeverReconnect()))
	if err := d.Connect(ctxFor(t), b.URL("/radio")); err != nil {
		t.Fatal(err)
	}
	if err := d.Join(ctxFor(t), "", weida.JoinOptions{}); err != nil {
		t.Fatal(err)
	}
	pubsubAwait(t, "the join", func() bool { return r.DishCount() == 1 })
	// Leave work in every state: a datagram flow, a finished segment, and
	// an unfinished one blocked by a dish that reads nothing.
	if n, _ := r.Datagram("d", []byte("x")); n != 1 {
		t.Fatal("the datagram reached nobody")
	}
	sendSegment(t, r, "a", 1000, weida.SegmentOptions{})
	s, err := r.Segment("b", weida.SegmentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for range 16 {
		s.WriteLayer(1, make([]byte, 4<<10))
	}
	dishRT.Shutdown()
	radioRT.Shutdown()
	baseline()
}

func TestRadioSupersessionResetsOnlyTheUnfinishedCopy(t *testing.T) {
	r, b := radioServe(t, weida.Config{})
	d := radioDish(t, weida.Config{}, r, b, "", weida.JoinOptions{}, 1)
	// Segment 0 is finished when segment 1 opens: it gets its grace and,
	// acknowledged within it, is kept.
	sendSegment(t, r, "t", 1000, weida.SegmentOptions{})
	open, err := r.Segment("t", weida.SegmentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Segment 1 writes nothing until 0 arrived: a newer segment reaching
	// the dish first would make 0 stale there (numbers never go back).
	if m := recvSegment(t, d, 1000); m.Segment != 0 {
		t.Fatalf("got segment %d, want the finished segment 0", m.Segment)
	}
	if n, err := open.Write(segmentBytes(1, 1000)); n != 1 || err != nil {
		t.Fatalf("write: %d, %v", n, err)
	}
	// Segment 1 is still being written when segment 2 opens: reset at once.
	sendSegment(t, r, "t", 1000, weida.SegmentOptions{})
	if got := dropsOf(r).Superseded; got != 1 {
		t.Fatalf("superseded %d, want the unfinished segment 1 only", got)
	}
	if m := recvSegment(t, d, 1000); m.Segment != 2 {
		t.Fatalf("got segment %d, want 2 (segment 1 was reset, a gap)", m.Segment)
	}
	if _, err := open.Write([]byte("late")); err != nil {
		t.Fatalf("writing a superseded segment is not an error: %v", err)
	}
	if alive, _ := open.Finish(); alive != 0 {
		t.Fatalf("the superseded segment still has %d live copies", alive)
	}
}

func TestRadioFollowsUpstreamUntilAWriteMustWait(t *testing.T) {
	r, b := radioServe(t, weida.Config{SubscriberBufferBytes: 64 << 10})
	radioDish(t, weida.Config{Limits: stalledLimits}, r, b, "", weida.JoinOptions{}, 1)
	up, err := r.Segment("t", weida.SegmentOptions{FollowsUpstream: true})
	if err != nil {
		t.Fatal(err)
	}
	for range 12 { // 48 KiB at a dish that reads nothing: most of it stays queued
		if n, _ := up.Write(make([]byte, 4<<10)); n != 1 {
			t.Fatal("the first segment lost its copy while alone")
		}
	}
	next, err := r.Segment("t", weida.SegmentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := dropsOf(r).Superseded; got != 0 {
		t.Fatalf("a segment following upstream was reset by its successor's open (%d)", got)
	}
	// Now the successor needs the room: the follower's copy goes first,
	// and the successor keeps its own.
	for i := 0; dropsOf(r).Superseded == 0; i++ {
		if i == 100 {
			t.Fatal("the budget never ran out")
		}
		if n, _ := next.Write(make([]byte, 8<<10)); n != 1 {
			t.Fatalf("write %d: the successor lost its copy before the follower was cut", i)
		}
	}
	if d := dropsOf(r); d.Superseded != 1 || d.SubscriberBudget != 0 {
		t.Fatalf("drops %+v, want the follower superseded and nothing else", d)
	}
}

func TestRadioLateJoinerGetsTheNextSegment(t *testing.T) {
	r, b := radioServe(t, weida.Config{})
	if _, reached := sendSegment(t, r, "t", 100, weida.SegmentOptions{}); reached != 0 {
		t.Fatalf("segment 0 reached %d dishes before anyone joined", reached)
	}
	d := radioDish(t, weida.Config{}, r, b, "t", weida.JoinOptions{}, 1)
	sendSegment(t, r, "t", 100, weida.SegmentOptions{})
	if m := recvSegment(t, d, 100); m.Segment != 1 || m.Topic != "t" {
		t.Fatalf("the late joiner got segment %d on %q, want 1 on t (nothing retained)", m.Segment, m.Topic)
	}
}

func TestRadioMaxAgeExpiresStalledCopies(t *testing.T) {
	cases := []struct {
		name   string
		join   weida.JoinOptions
		sender weida.SegmentOptions
	}{
		{"dish max_age", weida.JoinOptions{MaxAge: 30 * time.Millisecond}, weida.SegmentOptions{}},
		{"sender max_age", weida.JoinOptions{}, weida.SegmentOptions{MaxAge: 30 * time.Millisecond}},
		{"smaller wins", weida.JoinOptions{MaxAge: time.Hour}, weida.SegmentOptions{MaxAge: 30 * time.Millisecond}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, b := radioServe(t, weida.Config{})
			radioDish(t, weida.Config{Limits: stalledLimits}, r, b, "", tc.join, 1)
			// 128 KiB cannot be acknowledged by a dish that reads nothing.
			sendSegment(t, r, "t", 128<<10, tc.sender)
			pubsubAwait(t, "the copy to expire", func() bool { return dropsOf(r).Expired == 1 })
		})
	}
}

func TestRadioDatagramSegments(t *testing.T) {
	r, b := radioServe(t, datagramsOn)
	withDatagrams := radioDish(t, datagramsOn, r, b, "", weida.JoinOptions{}, 1)
	radioDish(t, weida.Config{}, r, b, "", weida.JoinOptions{}, 2)

	if reached, err := r.Datagram("px", []byte("tick")); reached != 1 || err != nil {
		t.Fatalf("datagram reached %d (%v), want only the dish with datagrams", reached, err)
	}
	if d := dropsOf(r); d.NoDatagrams != 1 {
		t.Fatalf("drops %+v: the dish without datagrams must be counted, never served by a stream", d)
	}
	m, err := withDatagrams.Recv(ctxFor(t), 100)
	if err != nil {
		t.Fatal(err)
	}
	if m.Kind != weida.DishDatagram || m.Topic != "px" || m.Segment != 0 || string(m.Payload) != "tick" {
		t.Fatalf("got %+v", m)
	}
	if reached, _ := r.Datagram("px", make([]byte, 4000)); reached != 0 {
		t.Fatalf("an oversize datagram reached %d dishes", reached)
	}
	if d := dropsOf(r); d.TooLarge != 1 || d.NoDatagrams != 2 {
		t.Fatalf("drops %+v, want one TooLarge and a second NoDatagrams", d)
	}
	// Datagram segments share the topic's numbers with stream segments.
	sendSegment(t, r, "px", 10, weida.SegmentOptions{})
	if m := recvSegment(t, withDatagrams, 10); m.Segment != 2 {
		t.Fatalf("stream segment after two datagrams numbered %d, want 2", m.Segment)
	}
}

func TestRadioLayers(t *testing.T) {
	r, b := radioServe(t, weida.Config{})
	capped := radioDish(t, weida.Config{}, r, b, "", weida.JoinOptions{MaxLayer: 1, CapLayers: true}, 1)
	radioDish(t, weida.Config{}, r, b, "", weida.JoinOptions{}, 2)
	s, err := r.Segment("v", weida.SegmentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for layer, want := range []int{2, 2, 1} { // the capped dish never gets layer 2
		if n, err := s.WriteLayer(layer, []byte{byte(layer)}); n != want || err != nil {
			t.Fatalf("layer %d reached %d (%v), want %d", layer, n, err, want)
		}
	}
	if _, err := s.WriteLayer(16, nil); !errors.Is(err, weida.ErrLimitExceeded) {
		t.Fatalf("layer 16: %v, want LimitExceeded", err)
	}
	if err := s.FinishLayer(1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WriteLayer(1, []byte{1}); !errors.Is(err, weida.ErrNoReply) {
		t.Fatalf("writing a finished layer: %v, want NoReply", err)
	}
	if alive, err := s.Finish(); alive != 2 || err != nil {
		t.Fatalf("finish: %d alive, %v", alive, err)
	}
	seen := map[int]bool{}
	for range 2 {
		m, err := capped.Recv(ctxFor(t), 10)
		if err != nil {
			t.Fatal(err)
		}
		if layer, _ := m.Meta.Layer(); layer != m.Layer || len(m.Payload) != 1 || int(m.Payload[0]) != m.Layer {
			t.Fatalf("layer %d carried %v", m.Layer, m.Payload)
		}
		seen[m.Layer] = true
	}
	if !seen[0] || !seen[1] {
		t.Fatalf("capped dish got layers %v, want 0 and 1", seen)
	}
}

func TestRadioCutsLayersFromTheTopUnderPressure(t *testing.T) {
	r, b := radioServe(t, weida.Config{SubscriberBufferBytes: 64 << 10})
	radioDish(t, weida.Config{Limits: stalledLimits}, r, b, "", weida.JoinOptions{}, 1)
	s, err := r.Segment("v", weida.SegmentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4<<10)
	if n, _ := s.WriteLayer(0, chunk); n != 1 {
		t.Fatal("layer 0 lost at once")
	}
	writeUntilLost := func(layer int) {
		for i := 0; ; i++ {
			if i == 200 {
				t.Fatalf("layer %d never ran out of room", layer)
			}
			if n, _ := s.WriteLayer(layer, chunk); n == 0 {
				return
			}
		}
	}
	writeUntilLost(2)
	if d := dropsOf(r); d.LayersCut != 1 || r.Dropped() != 0 {
		t.Fatalf("after layer 2 ran out: %+v, dropped %d; want layers cut once and the segment kept", d, r.Dropped())
	}
	if n, _ := s.WriteLayer(2, []byte{1}); n != 0 {
		t.Fatal("a cut layer was written again")
	}
	writeUntilLost(0)
	if d := dropsOf(r); d.LayersCut != 1 || d.SubscriberBudget != 1 || r.Dropped() != 1 {
		t.Fatalf("after layer 0 ran out: %+v, dropped %d; want the segment lost to the budget", d, r.Dropped())
	}
}

func TestRadioAdmissionAndEviction(t *testing.T) {
	r, b := radioServe(t, weida.Config{})
	id, err := weida.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	d := radioDish(t, weida.Config{}, r, b, "open", weida.JoinOptions{}, 1, weida.WithClientIdentity(id))
	if err := d.Join(ctxFor(t), "old", weida.JoinOptions{}); err != nil {
		t.Fatal(err)
	}
	pubsubAwait(t, "both joins", func() bool { return r.FilterCount() == 2 })

	refused := make(chan weida.Join, 4)
	r.SetAdmission(func(j weida.Join) bool {
		if j.Filter == "open" {
			return true
		}
		refused <- j
		return false
	})
	if got := r.FilterCount(); got != 1 {
		t.Fatalf("installing the policy kept %d joins, want the re-screen to withdraw %q", got, "old")
	}
	<-refused
	if err := d.Join(ctxFor(t), "secret", weida.JoinOptions{}); err != nil {
		t.Fatal(err)
	}
	j := <-refused // the policy saw it: it is decided, nothing was recorded
	if j.Filter != "secret" || !j.HasPeer || j.Peer != id.Fingerprint() {
		t.Fatalf("the policy saw %+v", j)
	}
	if got := r.FilterCount(); got != 1 {
		t.Fatalf("a refused join was recorded (%d joins)", got)
	}
	if n := r.Evict(id.Fingerprint(), "open"); n != 1 {
		t.Fatalf("evict withdrew %d joins, want 1", n)
	}
	if r.DishCount() != 0 || d.PeerCount() != 1 {
		t.Fatalf("after eviction: %d dishes at the radio, dish has %d peers (its connection stays)", r.DishCount(), d.PeerCount())
	}
}

func TestRadioRefusesInboundAndClosedUse(t *testing.T) {
	r, b := radioServe(t, datagramsOn)
	p := flowPeer(t, datagramsOn, b.URL("/radio"))
	if _, err := exchange(t, p, []byte("q")); !errors.Is(err, weida.ErrUnsupported) {
		t.Fatalf("an exchange with a radio path: %v, want Unsupported", err)
	}
	f, err := p.OpenFlow(ctxFor(t), weida.FlowMeta{})
	if err != nil {
		t.Fatal(err)
	}
	<-f.Done()
	if err := f.Send([]byte("x")); !errors.Is(err, weida.ErrUnsupported) {
		t.Fatalf("a flow to a radio path: %v, want Unsupported", err)
	}
	if _, err := r.Segment(string(make([]byte, 300)), weida.SegmentOptions{}); !errors.Is(err, weida.ErrProtocol) {
		t.Fatalf("a 300-byte topic: %v, want Protocol", err)
	}
	r.Close()
	if _, err := r.Segment("t", weida.SegmentOptions{}); !errors.Is(err, weida.ErrCanceled) {
		t.Fatalf("segment on a closed radio: %v, want Canceled", err)
	}
}
