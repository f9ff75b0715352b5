package wire

import (
	"bytes"
	"errors"
	"testing"
)

func TestDatagramRoundTrip(t *testing.T) {
	for _, v := range []struct {
		flow    uint64
		payload []byte
	}{{0, nil}, {63, []byte("x")}, {64, []byte{0, 1}}, {MaxVarint, bytes.Repeat([]byte{7}, 1200)}} {
		b := AppendDatagram(nil, v.flow, v.payload)
		flow, payload, err := ParseDatagram(b)
		if err != nil || flow != v.flow || !bytes.Equal(payload, v.payload) {
			t.Errorf("flow %d: %d, %d bytes, %v", v.flow, flow, len(payload), err)
		}
	}
}

func TestDatagramTruncatedIsNotAViolation(t *testing.T) {
	for _, b := range [][]byte{nil, {0x40}, {0x80, 0, 0}, {0xC0, 0, 0, 0, 0, 0, 0}} {
		_, _, err := ParseDatagram(b)
		if !errors.Is(err, ErrTruncatedDatagram) || errors.Is(err, ErrProtocolViolation) {
			t.Errorf("% X: %v, want ErrTruncatedDatagram", b, err)
		}
	}
}
