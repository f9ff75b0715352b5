package weida_test

import (
	"errors"
	"testing"

	weida "github.com/weida-go/weida/core"
)

func TestRadioLayers(t *testing.T) { forEachTransport(t, testRadioLayers) }

func testRadioLayers(t *testing.T, tr testTransport) {
	r, b := radioServeOn(t, tr, weida.Config{})
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
