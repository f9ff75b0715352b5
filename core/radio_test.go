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

// radioServe binds a radio at /radio under cfg over QUIC.
func radioServe(t *testing.T, cfg weida.Config) (*weida.Radio, *weida.Binding) {
	t.Helper()
	return radioServeOn(t, transports[0], cfg)
}

// radioServeOn binds a radio at /radio under cfg on tr. The radio tests
// whose bodies hold on every transport run through forEachTransport: a
// local transport has no grace for a superseded segment (its receipt is
// the FIN in the dish's buffer) and no priorities.
func radioServeOn(t *testing.T, tr testTransport, cfg weida.Config) (*weida.Radio, *weida.Binding) {
	t.Helper()
	rt := runtimeWith(t, cfg)
	b := tr.bind(t, rt)
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

// dropsOf sums the radio's drop records over every dish.
func dropsOf(r *weida.Radio) weida.DishDrops {
	var sum weida.DishDrops
	for _, d := range r.DishDrops() {
		sum.SubscriberBudget += d.SubscriberBudget
		sum.SubscriberQueue += d.SubscriberQueue
		sum.Superseded += d.Superseded
		sum.Expired += d.Expired
		sum.TooLarge += d.TooLarge
		sum.NoDatagrams += d.NoDatagrams
		sum.NoParked += d.NoParked
		sum.LayersCut += d.LayersCut
	}
	return sum
}

// TestRadioLateIsLost is guide_late_is_lost: a stalled dish loses old
// segments to supersession while a fast one gets all ten whole, in order,
// and loses nothing.
func TestRadioLateIsLost(t *testing.T) {
	r, b := radioServe(t, weida.Config{})
	fastID, stalledID := newIdentity(t), newIdentity(t)
	fast := radioDish(t, weida.Config{}, r, b, "voice.#", weida.JoinOptions{}, 1, weida.WithClientIdentity(fastID))
	radioDish(t, weida.Config{Limits: stalledLimits}, r, b, "voice.#", weida.JoinOptions{}, 2, weida.WithClientIdentity(stalledID))
	const segments, size = 10, 24 << 10
	for i := range segments {
		if _, reached := sendSegment(t, r, "voice.a", size, weida.SegmentOptions{}); reached != 2 {
			t.Fatalf("segment %d reached %d dishes, want 2", i, reached)
		}
		// The next segment opens once the fast dish has this one: a dish
		// that keeps up never loses a finished segment to its successor.
		if m := recvSegment(t, fast, size); m.Segment != uint64(i) {
			t.Fatalf("fast dish got segment %d, want %d", m.Segment, i)
		}
	}
	pubsubAwait(t, "the stalled dish to lose a segment to supersession", func() bool {
		return dropsFor(t, r, stalledID).Superseded > 0
	})
	if d := dropsFor(t, r, fastID); d != (weida.DishDrops{Peer: d.Peer, HasPeer: true, Addr: d.Addr}) {
		t.Fatalf("the fast dish lost segments: %+v", d)
	}
	if d := dropsFor(t, r, stalledID); r.Dropped() != d.Superseded {
		t.Fatalf("dropped %d, stalled dish %+v: supersession is the only cause here", r.Dropped(), d)
	}
}

func newIdentity(t *testing.T) *weida.Identity {
	t.Helper()
	id, err := weida.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// dropsFor is the radio's drop record of the dish that proved id.
func dropsFor(t *testing.T, r *weida.Radio, id *weida.Identity) weida.DishDrops {
	t.Helper()
	for _, d := range r.DishDrops() {
		if d.HasPeer && d.Peer == id.Fingerprint() {
			return d
		}
	}
	t.Fatalf("no drop record for dish %s", id.Fingerprint())
	return weida.DishDrops{}
}

func TestRadioGoroutinesEndAtShutdown(t *testing.T) {
	forEachTransport(t, testRadioGoroutinesEnd)
}

func testRadioGoroutinesEnd(t *testing.T, tr testTransport) {
	baseline := busGoroutineBaseline(t)
	radioRT := runtimeWith(t, datagramsOn)
	b := tr.bind(t, radioRT)
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

// TestRadioSupersessionResetsOnlyTheUnfinishedCopy runs over QUIC only: a
// local transport has no grace (TestRadioLocalGraceIsZero).
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

func TestRadioLateJoinerGetsTheNextSegment(t *testing.T) { forEachTransport(t, testRadioLateJoiner) }

func testRadioLateJoiner(t *testing.T, tr testTransport) {
	r, b := radioServeOn(t, tr, weida.Config{})
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

// A copy the dish refuses (here: its receive queue is full) is given up at
// once, so the rest of the segment does not eat the dish's budget.
func TestRadioGivesUpACopyTheDishRefused(t *testing.T) {
	forEachTransport(t, testRadioGivesUpARefusedCopy)
}

func testRadioGivesUpARefusedCopy(t *testing.T, tr testTransport) {
	r, b := radioServeOn(t, tr, weida.Config{SubscriberBufferBytes: 64 << 10})
	d := radioDish(t, weida.Config{EndpointQueue: 1}, r, b, "", weida.JoinOptions{}, 1)
	// Two segments on two topics for a queue of one: whichever arrives
	// second is refused.
	var segs []*weida.Segment
	for _, topic := range []string{"a", "b"} {
		s, err := r.Segment(topic, weida.SegmentOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := s.Write(make([]byte, 1<<10)); n != 1 {
			t.Fatalf("segment %s reached no dish", topic)
		}
		segs = append(segs, s)
	}
	pubsubAwait(t, "the dish to refuse one segment", func() bool { return d.Overflow() == 1 })
	pubsubAwait(t, "the radio to give the refused copy up", func() bool { return segs[0].Alive()+segs[1].Alive() == 1 })
	refused := segs[0]
	if refused.Alive() == 1 {
		refused = segs[1]
	}
	for range 100 { // 100 KiB more: a copy still charged would run out of budget
		if n, _ := refused.Write(make([]byte, 1<<10)); n != 0 {
			t.Fatal("a refused copy took a chunk")
		}
	}
	if drops := dropsOf(r); drops.SubscriberBudget != 0 || r.Dropped() != 0 {
		t.Fatalf("drops %+v: a refusal is not a budget loss", drops)
	}
}

// TestRadioCancelReleasesTheDish: a dish reads segments in arrival order,
// so an unfinished segment nobody finishes would hold it until the topic's
// next segment or max_age. Cancel resets the copies at once: the dish goes
// on to a segment on another topic, and the cancelled one is never
// delivered, part or whole.
func TestRadioCancelReleasesTheDish(t *testing.T) { forEachTransport(t, testRadioCancel) }

func testRadioCancel(t *testing.T, tr testTransport) {
	r, b := radioServeOn(t, tr, weida.Config{})
	d := radioDish(t, weida.Config{}, r, b, "", weida.JoinOptions{}, 1)
	open, err := r.Segment("a", weida.SegmentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := open.Write(segmentBytes(0, 1000)); n != 1 || err != nil {
		t.Fatalf("write: %d, %v", n, err)
	}
	open.Cancel()
	open.Cancel() // idempotent
	if alive := open.Alive(); alive != 0 {
		t.Fatalf("%d copies alive after Cancel", alive)
	}
	if _, err := open.Write([]byte("late")); !errors.Is(err, weida.ErrNoReply) {
		t.Fatalf("write after Cancel: %v, want NoReply", err)
	}
	sendSegment(t, r, "b", 1000, weida.SegmentOptions{})
	if m := recvSegment(t, d, 1000); m.Topic != "b" {
		t.Fatalf("got a segment on %q, want the one on b", m.Topic)
	}
	if drops := dropsOf(r); drops.Superseded != 0 || drops.LayersCut != 0 {
		t.Fatalf("a cancel counted as a drop: %+v", drops)
	}
}
