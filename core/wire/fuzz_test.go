package wire

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Properties every fuzzer checks: no panic; every failure is a violation
// (or ErrNeedMore where input may be partial); and whatever decodes
// re-encodes to bytes that decode to the same value.

// seedHeaders adds to f the header of every golden frame of the given
// kinds, and the rejected and accepted header vectors of §15.3.
func seedHeaders(f *testing.F, kinds ...Kind) {
	for _, v := range goldenFrames {
		if slices.Contains(kinds, v.kind) {
			b := unhex(f, v.hex)
			_, n, _ := ParsePreamble(b, DefaultMaxHeaderBytes)
			f.Add(b[n:])
		}
	}
	for _, v := range goldenRejected {
		f.Add(unhex(f, v.hex))
	}
	for _, s := range []string{
		"A2 00 62 2F 74 18 3F 82 07 A1 01 F5", "A2 01 05 19 03 E8 66 66 75 74 75 72 65",
		"A1 18 32 " + repeatHex("81", 8) + "01", "A1 00 18 63", "A0",
	} {
		f.Add(unhex(f, s))
	}
}

// roundTrip checks decode(encode(v)) == v and that encoding is stable.
func roundTrip[T any, P interface {
	*T
	HeaderAppender
}](t *testing.T, v T, decode func([]byte) (T, error)) {
	enc := P(&v).AppendHeader(nil)
	again, err := decode(enc)
	if err != nil {
		t.Fatalf("re-encoded header % X does not decode: %v", enc, err)
	}
	if !reflect.DeepEqual(again, v) {
		t.Fatalf("round trip changed the value:\n was %+v\n now %+v", v, again)
	}
	if enc2 := P(&again).AppendHeader(nil); !bytes.Equal(enc, enc2) {
		t.Fatalf("encoding is not stable: % X then % X", enc, enc2)
	}
}

// fuzzDecoder is the shared body of the header fuzzers.
func fuzzDecoder[T any, P interface {
	*T
	HeaderAppender
}](f *testing.F, decode func([]byte) (T, error), kinds ...Kind) {
	seedHeaders(f, kinds...)
	f.Fuzz(func(t *testing.T, hdr []byte) {
		v, err := decode(hdr)
		if err != nil {
			if !errors.Is(err, ErrProtocolViolation) {
				t.Fatalf("failure is not a violation: %v", err)
			}
			return
		}
		roundTrip[T, P](t, v, decode)
	})
}

func FuzzDecodeHello(f *testing.F) { fuzzDecoder[Hello](f, DecodeHello, KindHello) }
func FuzzDecodeData(f *testing.F)  { fuzzDecoder[Data](f, DecodeData, KindData) }

// FuzzDecodeDataMinimal checks the fast path against the walk: a header
// decodeMinimal accepts, the walk accepts too, with the same result.
func FuzzDecodeDataMinimal(f *testing.F) {
	seedHeaders(f, KindData)
	for _, s := range []string{"A2 00 65 2F 6A 6F 62 73 01 18 40", "A2 00 62 2F 74 01 19 01", "A1 00 62 2F 74", "A3 00 62 2F 74 01 19 04 00 05 63 61 2E 62", "A2 06 07 06 08"} {
		f.Add(unhex(f, s))
	}
	f.Fuzz(func(t *testing.T, hdr []byte) {
		const known = "/jobs"
		var fast, walked Data
		if !fast.decodeMinimal(hdr, known) {
			return
		}
		if err := walked.decodeWalk(hdr, known); err != nil || !reflect.DeepEqual(fast, walked) {
			t.Fatalf("% X: decodeMinimal gave %+v, the walk %+v (%v)", hdr, fast, walked, err)
		}
	})
}

func FuzzDecodeError(f *testing.F) { fuzzDecoder[ErrorFrame](f, DecodeError, KindError) }
func FuzzDecodeSubscribe(f *testing.F) {
	fuzzDecoder[Subscribe](f, DecodeSubscribe, KindSubscribe, KindUnsubscribe)
}
func FuzzDecodeCredit(f *testing.F)     { fuzzDecoder[Credit](f, DecodeCredit, KindCredit) }
func FuzzDecodeCursorHead(f *testing.F) { fuzzDecoder[CursorHead](f, DecodeCursorHead, KindCursor) }
func FuzzDecodeFlow(f *testing.F)       { fuzzDecoder[Flow](f, DecodeFlow, KindFlow) }

func FuzzParseVarint(f *testing.F) {
	for _, s := range []string{"25", "40 25", "7B BD", "9D 7F 3E 7D", "C2 19 7C 5E FF 14 E8 8C", "80 00 40 00", "", "C0"} {
		f.Add(unhex(f, s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, n, err := ParseVarint(b)
		if err != nil {
			if !errors.Is(err, ErrNeedMore) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if n < 1 || n > 8 || n > len(b) || v > MaxVarint {
			t.Fatalf("value %d in %d of %d bytes", v, n, len(b))
		}
		enc := AppendVarint(nil, v)
		if again, m, _ := ParseVarint(enc); again != v || m != len(enc) || m > n {
			t.Fatalf("%d re-encodes as % X", v, enc)
		}
	})
}

func seedPreambles(f *testing.F) {
	for _, s := range []string{
		"58 01 00", "57 08 00", "57 01 80 10 00 00", "57 02 C0 00 00 00 00 00 00 05", "57 00 80 00 40 00",
	} {
		f.Add(unhex(f, s))
	}
	for _, v := range goldenFrames {
		f.Add(unhex(f, v.hex))
	}
}

func FuzzParsePreamble(f *testing.F) {
	seedPreambles(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		p, n, err := ParsePreamble(b, DefaultMaxHeaderBytes)
		if err != nil {
			if !errors.Is(err, ErrNeedMore) && !errors.Is(err, ErrProtocolViolation) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if n < 3 || n > MaxPreambleLen || !p.Kind.Valid() || p.HeaderLen > DefaultMaxHeaderBytes {
			t.Fatalf("accepted %+v in %d bytes", p, n)
		}
		enc := AppendPreamble(nil, p.Kind, int(p.HeaderLen))
		if again, _, err := ParsePreamble(enc, DefaultMaxHeaderBytes); err != nil || again != p {
			t.Fatalf("%+v re-encodes as % X", p, enc)
		}
	})
}

func FuzzReadHeader(f *testing.F) {
	seedPreambles(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		k, hdr, err := ReadHeader(r, DefaultMaxHeaderBytes, make([]byte, 0, 64))
		if err != nil {
			if !errors.Is(err, ErrProtocolViolation) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		p, n, err := ParsePreamble(b, DefaultMaxHeaderBytes)
		if err != nil || p.Kind != k || !bytes.Equal(hdr, b[n:n+int(p.HeaderLen)]) {
			t.Fatalf("ReadHeader and ParsePreamble disagree: %v", err)
		}
		if consumed := len(b) - r.Len(); consumed != n+len(hdr) {
			t.Fatalf("consumed %d bytes, want %d", consumed, n+len(hdr))
		}
	})
}

// FuzzDecodeLeaderAnswer covers the leader query's reply payload, which a
// client decodes from whatever a member answered.
func FuzzDecodeLeaderAnswer(f *testing.F) {
	for _, s := range []string{leaderAnswerHex, "A2 00 60 01 00", "A1 00 60", "A2 00 60 01 20", "A3 00 60 01 00 18 40 F5"} {
		f.Add(unhex(f, s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := DecodeLeaderAnswer(b)
		if err != nil {
			if !errors.Is(err, ErrProtocolViolation) {
				t.Fatalf("failure is not a violation: %v", err)
			}
			return
		}
		roundTrip[LeaderAnswer](t, a, DecodeLeaderAnswer)
	})
}

func FuzzParseCursorRecord(f *testing.F) {
	for _, s := range []string{"02 40 40", "03 80 0F 42 40", "0F 00", "02", "11 C0 00 00 00 00 00 00 01"} {
		f.Add(unhex(f, s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, n, err := ParseCursorRecord(b)
		if err != nil {
			if !errors.Is(err, ErrNeedMore) && !errors.Is(err, ErrProtocolViolation) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if LevelReserved(rec.Level) || n > len(b) {
			t.Fatalf("accepted %+v in %d bytes", rec, n)
		}
		enc := AppendCursorRecord(nil, rec)
		if again, m, err := ParseCursorRecord(enc); err != nil || again != rec || m != len(enc) {
			t.Fatalf("%+v re-encodes as % X", rec, enc)
		}
	})
}

func FuzzParseDatagram(f *testing.F) {
	for _, s := range []string{"07 68 69", "", "40", "C0 00 00 00 00 00 00 01 FF"} {
		f.Add(unhex(f, s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		flow, payload, err := ParseDatagram(b)
		if err != nil {
			if !errors.Is(err, ErrTruncatedDatagram) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		enc := AppendDatagram(nil, flow, payload)
		if again, p2, err := ParseDatagram(enc); err != nil || again != flow || !bytes.Equal(p2, payload) {
			t.Fatalf("flow %d re-encodes as % X", flow, enc)
		}
	})
}

// FuzzValidateFilter also checks MatchTopic against the reference
// algorithm of §8.4.1, written with strings.Split.
func FuzzValidateFilter(f *testing.F) {
	for _, s := range []string{"", "#", "px", "px.eur", "px.*", "*.eur", "sensors.*.temp", "px.#", "px.", "a..b",
		"px*", "*px", "p*x.eur", "px.e*ur", "#.px", "px.#.eur", "px#"} {
		f.Add(s, "px.eur")
	}
	f.Fuzz(func(t *testing.T, filter, topic string) {
		if err := ValidateFilter(filter); err != nil && !errors.Is(err, ErrProtocolViolation) {
			t.Fatalf("unexpected error %v", err)
		}
		if got, want := MatchTopic(topic, filter), referenceMatch(topic, filter); got != want {
			t.Fatalf("MatchTopic(%q, %q) = %v, the reference says %v", topic, filter, got, want)
		}
	})
}

func referenceMatch(topic, filter string) bool {
	if filter == "" {
		return true
	}
	ts, fs := strings.Split(topic, "."), strings.Split(filter, ".")
	for i, seg := range fs {
		if seg == "#" {
			return true
		}
		if i >= len(ts) {
			return false
		}
		if seg != "*" && seg != ts[i] {
			return false
		}
	}
	return len(ts) == len(fs)
}

// FuzzSkip cross-checks the two layers of cborread.go on single values: what
// the walker skips, fxamacker's strict mode finds well-formed; and what
// strict mode finds well-formed, the walker skips whole unless one of the
// rules only the walker knows (depth, half floats, UTF-8) forbids it.
func FuzzSkip(f *testing.F) {
	for _, s := range []string{
		"82 07 A1 01 F5", repeatHex("81", 8) + "01", repeatHex("81", 9) + "01", "F9 3C 00", "62 C3 28",
		"D8 18 01", "5F 41 00 FF", "FB 7F F8 00 00 00 00 00 00", "BB 80 00 00 00 00 00 00 00", "F8 20",
	} {
		f.Add(unhex(f, s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > strictMaxItems {
			return // past strict mode's container bound the layers differ by design
		}
		r := reader{buf: b}
		skipErr := r.skip()
		if skipErr == nil {
			if err := strictMode.Wellformed(b[:r.off]); err != nil {
				t.Fatalf("walker skipped % X, strict mode says %v", b[:r.off], err)
			}
			return
		}
		if !errors.Is(skipErr, ErrProtocolViolation) {
			t.Fatalf("skip failed with a non-violation: %v", skipErr)
		}
		if strictMode.Wellformed(b) != nil {
			return
		}
		reason := reasonOf(skipErr)
		for _, walkerOnly := range []string{"nests more than", "half-precision", "UTF-8"} {
			if strings.Contains(reason, walkerOnly) {
				return
			}
		}
		t.Fatalf("strict mode accepts % X, the walker says %v", b, skipErr)
	})
}
