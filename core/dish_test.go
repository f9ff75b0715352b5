package weida_test

import (
	"errors"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// rawRadio is a radio written by hand on the transport, so a test can send
// segment numbers a real radio never would (older after newer, repeats).
type rawRadio struct {
	url    string
	joins  chan wire.Subscribe
	joined chan *transport.Conn
}

func (r *rawRadio) Data(_ *transport.Conn, in *transport.InStream) { in.Refuse(wire.CodeUnsupported) }
func (r *rawRadio) Exchange(_ *transport.Conn, ex *transport.Exchange) {
	ex.Refuse(wire.ErrorUnsupported, wire.CodeUnsupported)
}
func (r *rawRadio) Control(c *transport.Conn, kind wire.Kind, sub *wire.Subscribe, _ *wire.Credit) {
	if kind == wire.KindSubscribe {
		r.joins <- *sub
		r.joined <- c
	}
}
func (r *rawRadio) Cursor(_ *transport.Conn, _ wire.CursorHead, s *transport.CursorStream) {
	s.Stop(wire.CodeCanceled)
}
func (r *rawRadio) Closed(*transport.Conn, error) {}

func startRawRadio(t *testing.T) *rawRadio {
	t.Helper()
	id, err := identity.Generate()
	if err != nil {
		t.Fatal(err)
	}
	tlsConf, err := identity.ServerConfig(id, identity.ClientAnonymousAllowed, identity.TrustByAddress(), wire.ALPN)
	if err != nil {
		t.Fatal(err)
	}
	r := &rawRadio{joins: make(chan wire.Subscribe, 8), joined: make(chan *transport.Conn, 8)}
	l, err := transport.Listen("127.0.0.1:0", tlsConf, transport.NewConfig(), r)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(wire.CodeShutdown, "test over") })
	a := l.Addr()
	r.url = identity.Address{Scheme: identity.SchemeQUIC, Fingerprint: id.Fingerprint(), HasFingerprint: true,
		Host: a.IP.String(), Port: uint16(a.Port), Path: "/radio"}.String()
	return r
}

// rawDish connects a dish under cfg to the raw radio, joins every topic
// and returns the radio's end of the connection.
func rawDish(t *testing.T, cfg weida.Config, r *rawRadio) (*weida.Dish, *transport.Conn) {
	t.Helper()
	d := runtimeWith(t, cfg).Dish(weida.TrustByAddress())
	t.Cleanup(func() { d.Close() })
	if err := d.Connect(ctxFor(t), r.url); err != nil {
		t.Fatal(err)
	}
	if err := d.Join(ctxFor(t), "", weida.JoinOptions{}); err != nil {
		t.Fatal(err)
	}
	<-r.joins
	return d, <-r.joined
}

// rawSegmentTo writes one segment to path and returns what writing it met.
func rawSegmentTo(t *testing.T, c *transport.Conn, path, topic string, number, layer uint64, payload []byte) error {
	t.Helper()
	out, err := c.OpenUni(ctxFor(t), &wire.Data{Endpoint: wire.Some(path), Topic: wire.Some(topic),
		Segment: wire.Some(number), Layer: layer})
	if err != nil {
		return err
	}
	if _, err := out.Write(payload); err != nil {
		return err
	}
	_, err = out.Finish()
	return err
}

func recvPayload(t *testing.T, d *weida.Dish) string {
	t.Helper()
	m, err := d.Recv(ctxFor(t), 100)
	if err != nil {
		t.Fatal(err)
	}
	return string(m.Payload)
}

func TestDishNumbersNeverGoBackwards(t *testing.T) {
	r := startRawRadio(t)
	d, c := rawDish(t, weida.Config{}, r)
	steps := []struct {
		number, layer uint64
		payload       string
		fresh         bool
	}{
		{5, 0, "5", true},
		{3, 0, "older", false},        // older than the newest: discarded on arrival
		{5, 1, "5.1", true},           // the newest, a layer not seen yet
		{5, 1, "5.1 again", false},    // a layer already delivered
		{6, 0, "6", true},             // newer
		{5, 2, "5.2 too late", false}, // any layer of an older segment
	}
	stale := uint64(0)
	for _, st := range steps {
		err := rawSegmentTo(t, c, "/radio", "t", st.number, st.layer, []byte(st.payload))
		if st.fresh && err != nil {
			t.Fatal(err)
		}
		if !st.fresh { // the refusal may reach the writer, or come after its FIN
			stale++
			pubsubAwait(t, "the stale arrival to be counted", func() bool { return d.Stale() == stale })
			continue
		}
		// Every stale arrival before this one was counted, hence refused:
		// the next delivery can only be this segment.
		if got := recvPayload(t, d); got != st.payload {
			t.Fatalf("received %q, want %q (stale ones are never delivered)", got, st.payload)
		}
	}
}

func TestDishFullQueueDiscardsOnArrival(t *testing.T) {
	r := startRawRadio(t)
	d, c := rawDish(t, weida.Config{EndpointQueue: 2}, r)
	// One topic each: arrivals may overtake each other, and on one topic
	// an overtaken segment would be stale rather than overflow.
	for i := range 5 {
		topic := string(rune('a' + i))
		// A refused segment may fail its writer: the count tells.
		_ = rawSegmentTo(t, c, "/radio", topic, 0, 0, []byte(topic))
	}
	pubsubAwait(t, "three arrivals to overflow", func() bool { return d.Overflow() == 3 })
	got := map[string]bool{}
	for range 2 {
		got[recvPayload(t, d)] = true
	}
	if len(got) != 2 || d.Stale() != 0 {
		t.Fatalf("received %v (stale %d), want two distinct segments", got, d.Stale())
	}
}

func TestDishJoinTermsReachTheRadio(t *testing.T) {
	r := startRawRadio(t)
	d, _ := rawDish(t, weida.Config{}, r)
	if err := d.Join(ctxFor(t), "v.#", weida.JoinOptions{MaxAge: 250 * time.Millisecond, MaxLayer: 3, CapLayers: true}); err != nil {
		t.Fatal(err)
	}
	sub := <-r.joins
	if sub.Filter != "v.#" || sub.MaxAgeMs != wire.Some(uint64(250)) || sub.MaxLayer != wire.Some(uint64(3)) {
		t.Fatalf("the radio got %+v", sub)
	}
	cases := []struct {
		filter string
		opts   weida.JoinOptions
		want   error
	}{
		{"v", weida.JoinOptions{MaxLayer: 16, CapLayers: true}, weida.ErrLimitExceeded},
		{"a.#.b", weida.JoinOptions{}, weida.ErrProtocol},
	}
	for _, tc := range cases {
		if err := d.Join(ctxFor(t), tc.filter, tc.opts); !errors.Is(err, tc.want) {
			t.Fatalf("join %q %+v: %v, want %v", tc.filter, tc.opts, err, tc.want)
		}
	}
}

func TestDishRecvCeilingAndLeave(t *testing.T) {
	r, b := radioServe(t, weida.Config{})
	d := radioDish(t, weida.Config{}, r, b, "t", weida.JoinOptions{}, 1)
	sendSegment(t, r, "t", 100, weida.SegmentOptions{})
	if _, err := d.Recv(ctxFor(t), 10); !errors.Is(err, weida.ErrLimitExceeded) {
		t.Fatalf("a 100-byte segment under a 10-byte ceiling: %v, want LimitExceeded", err)
	}
	sendSegment(t, r, "t", 10, weida.SegmentOptions{})
	if m := recvSegment(t, d, 10); m.Segment != 1 {
		t.Fatalf("after a refused segment the dish got %d, want 1", m.Segment)
	}
	if err := d.Leave(ctxFor(t), "t"); err != nil {
		t.Fatal(err)
	}
	pubsubAwait(t, "the leave to reach the radio", func() bool { return r.DishCount() == 0 })
}

func TestDishRejoinsAfterARedial(t *testing.T) {
	id, _ := weida.GenerateIdentity()
	first := runtimeWith(t, weida.Config{})
	b, err := first.Listener().BindQUIC("127.0.0.1:0", id)
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.Radio("/radio")
	if err != nil {
		t.Fatal(err)
	}
	addr := b.LocalAddr()
	d := radioDish(t, weida.Config{}, r, b, "t", weida.JoinOptions{MaxLayer: 0, CapLayers: true}, 1, fastRedial())
	events := d.Events()
	first.Shutdown()
	nextEvent(t, events, weida.EventLost)

	second := runtimeWith(t, weida.Config{})
	b2, err := second.Listener().BindQUIC(addr, id)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := b2.Radio("/radio")
	if err != nil {
		t.Fatal(err)
	}
	pubsubAwait(t, "the join to be re-sent", func() bool { return r2.DishCount() == 1 })
	s, err := r2.Segment("t", weida.SegmentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := s.WriteLayer(1, []byte("x")); n != 0 {
		t.Fatal("the re-sent join lost its layer cap")
	}
	if n, _ := s.Write([]byte("x")); n != 1 {
		t.Fatal("the re-sent join does not receive")
	}
}
