package wire

import (
	"reflect"
	"runtime"
	"testing"
)

// fullGuarantees is a valid set with every dimension away from core.
func fullGuarantees() GuaranteeSet {
	return GuaranteeSet{
		Delivery: 2, Acknowledgement: LevelReplicated, Durability: Some[uint64](1), Replicas: Some[uint64](3),
		Ordering: 1, Deduplication: 1, DedupWindowMs: Some[uint64](500), Backpressure: 2,
		ProducerNaming: 1, ControlIsolated: 1,
	}
}

func TestHelloRoundTrip(t *testing.T) {
	for name, h := range map[string]Hello{
		"default": DefaultHello(),
		"full": helloWith(func(h *Hello) {
			h.Versions = []uint64{0, 7, 1 << 40}
			h.MaxHeaderBytes, h.MaxTransfers = 1<<20, 2048
			h.Capabilities, h.RequiredCapabilities = []uint64{1, 64}, []uint64{1}
			h.Offered = fullGuarantees()
			h.Required = GuaranteeSet{Acknowledgement: LevelStored, Durability: Some[uint64](0), Ordering: 1, Backpressure: 2, ProducerNaming: 1}
		}),
		"no versions": helloWith(func(h *Hello) { h.Versions = nil }),
	} {
		got, err := DecodeHello(h.AppendHeader(nil))
		if err != nil || !reflect.DeepEqual(got, h) {
			t.Errorf("%s: round trip = %+v, %v; want %+v", name, got, err, h)
		}
	}
}

func TestHelloCoreSetsAreNotWritten(t *testing.T) {
	plain := DefaultHello()
	declared := DefaultHello()
	declared.Offered, declared.Required = CoreGuarantees(), CoreGuarantees()
	if hexOf(plain.AppendHeader(nil)) != hexOf(declared.AppendHeader(nil)) {
		t.Fatal("a core declaration changed the bytes")
	}
	// An empty map and an absent key both mean core.
	base := "00 81 00 01 19 40 00 02 19 04 00 03 80 04 80"
	got, err := DecodeHello(unhex(t, "A7 "+base+" 05 A0 06 A0"))
	if err != nil || !reflect.DeepEqual(got, plain) {
		t.Fatalf("empty maps: %+v, %v", got, err)
	}
}

func TestHelloSkipsUnknownKeys(t *testing.T) {
	base := "00 81 00 01 19 40 00 02 19 04 00 03 80 04 80"
	for _, v := range []string{
		"A6 " + base + " 07 A1 61 78 82 01 02",                        // the future credential key
		"A6 " + base + " 18 40 F5",                                    // an extension key
		"A6 " + base + " 05 A2 04 01 0A " + repeatHex("81", 8) + "80", // unknown dimension
	} {
		got, err := DecodeHello(unhex(t, v))
		if err != nil {
			t.Errorf("%s: %v", v, err)
			continue
		}
		if got.Versions[0] != 0 || got.MaxHeaderBytes != 16384 {
			t.Errorf("%s: decoded %+v", v, got)
		}
	}
}

func TestHelloRejects(t *testing.T) {
	list := func(n int) string { return "98 " + hexOf([]byte{byte(n)}) + " " + repeatHex("00", n) }
	keys := []string{"00 81 00", "01 19 40 00", "02 19 04 00", "03 80", "04 80"}
	without := func(skip int) string {
		s := "A4"
		for i, k := range keys {
			if i != skip {
				s += " " + k
			}
		}
		return s
	}
	for _, v := range []struct{ hex, want string }{
		{without(0), "key 0 (versions) is required but missing"},
		{without(1), "key 1 (max_header_bytes) is required but missing"},
		{without(2), "key 2 (max_transfers) is required but missing"},
		{without(3), "key 3 (capabilities) is required but missing"},
		{without(4), "key 4 (required_capabilities) is required but missing"},
		{"A5 00 " + list(65) + " 01 00 02 00 03 80 04 80", "key 0 (versions): array declares 65 items, more than 64"},
		{"A5 00 80 01 00 02 00 03 " + list(65) + " 04 80", "key 3 (capabilities): array declares 65 items"},
		{"A5 00 80 01 00 02 00 03 80 04 " + list(65), "key 4 (required_capabilities): array declares 65 items"},
		{"A5 00 81 61 30 01 00 02 00 03 80 04 80", "key 0 (versions): expected uint, got text string"},
		{"A5 00 00 01 00 02 00 03 80 04 80", "key 0 (versions): expected array, got uint"},
		{"A5 00 80 01 20 02 00 03 80 04 80", "key 1 (max_header_bytes): expected uint, got negative int"},
		{"A6 00 80 01 00 02 00 03 80 04 80 05 80", "HELLO key 5 (guarantees_offered): expected map, got array"},
		{"A6 00 80 01 00 02 00 03 80 04 80 05 A2 04 01 04 01", "HELLO key 5 (guarantees_offered): duplicate key 4"},
		{"A6 00 80 01 00 02 00 03 80 04 80 05 A1 04 61 31", "HELLO key 5 (guarantees_offered) key 4 (ordering): expected uint"},
		{"A6 00 80 01 00 02 00 03 80 04 80 06 A1 04 01", "guarantees_required is not reached by guarantees_offered (ordering)"},
		{"A6 00 80 01 00 02 00 03 80 04 80 05 A1 04 05", "HELLO key 5 (guarantees_offered): ordering 5 is undefined (0..=4)"},
		{"A6 00 80 01 00 02 00 03 80 04 80 05 A1 02 00", "durability without acknowledgement 3 or 4"},
		{"A6 00 80 01 00 02 00 03 80 04 80 06 A1 09 02", "HELLO key 6 (guarantees_required): control_isolated 2 is undefined"},
	} {
		_, err := DecodeHello(unhex(t, v.hex))
		wantViolation(t, err, v.want)
	}
}

// A declared count is judged before anything is reserved from it: the
// decoder's allocation stays far below what the count would need.
func TestListCountsAllocateNothing(t *testing.T) {
	for _, v := range []struct {
		as  Kind
		hex string
	}{
		{KindHello, "A1 00 9A FF FF FF FF"},                // §15.3: 2^32-1 items
		{KindHello, "A1 00 98 FF " + repeatHex("00", 255)}, // 255 items, all present
		{KindData, "A2 09 01 0A 9A 00 01 00 00 00 01 02"},  // a report of 65536 levels
	} {
		hdr := unhex(t, v.hex)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 100 {
			if _, err := decodeAs(v.as, hdr); err == nil {
				t.Fatalf("%s decoded", v.hex)
			}
		}
		runtime.ReadMemStats(&after)
		if per := (after.TotalAlloc - before.TotalAlloc) / 100; per > 1024 {
			t.Errorf("%s: %d bytes allocated per decode", v.hex, per)
		}
	}
}

func TestDefaultHelloIsGoldenVector4(t *testing.T) {
	h := DefaultHello()
	if got := hexOf(AppendFrame(nil, KindHello, &h)); got != "57 00 10 A5 00 81 00 01 19 40 00 02 19 04 00 03 80 04 80" {
		t.Fatalf("DefaultHello frame = %s", got)
	}
}
