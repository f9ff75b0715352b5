package wire

import (
	"bytes"
	"testing"
)

// Sinks keep results alive so the compiler cannot drop the work; they are
// typed, as storing into an interface would itself allocate.
var (
	sinkBytes  []byte
	sinkString string
	sinkLevels []uint64
)

func BenchmarkDataEncodeMinimal(b *testing.B) {
	d := &Data{Endpoint: Some("/t")} // golden vector 1
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendFrame(buf[:0], KindData, d)
	}
	sinkBytes = buf
}

func BenchmarkDataEncodeFull(b *testing.B) {
	d := fullData()
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendFrame(buf[:0], KindData, &d)
	}
	sinkBytes = buf
}

func BenchmarkDataDecodeMinimal(b *testing.B) {
	for _, v := range []struct{ name, hex string }{
		{"reply", "A0"},                                 // golden vector 2: nothing to copy
		{"confirm", "A1 08 02"},                         // golden vector 3
		{"request", "A1 00 62 2F 74"},                   // golden vector 1: one string
		{"push", "A2 00 62 2F 74 01 18 40"},             // Pusher.Send: path and length
		{"copy", "A3 00 62 2F 74 01 18 40 05 62 61 62"}, // a fan-out copy: and its topic
	} {
		hdr := unhex(b, v.hex)
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d, err := DecodeData(hdr)
				if err != nil {
					b.Fatal(err)
				}
				sinkString = d.Endpoint.V
			}
		})
	}
}

func BenchmarkDataDecodeFull(b *testing.B) {
	d := fullData()
	hdr := d.AppendHeader(nil)
	b.ReportAllocs()
	for b.Loop() {
		got, err := DecodeData(hdr)
		if err != nil {
			b.Fatal(err)
		}
		sinkLevels = got.Report
	}
}

func BenchmarkPreambleParse(b *testing.B) {
	frame := unhex(b, "57 01 80 00 40 00")
	b.ReportAllocs()
	for b.Loop() {
		p, _, err := ParsePreamble(frame, DefaultMaxHeaderBytes)
		if err != nil || p.HeaderLen != 16384 {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadHeader(b *testing.B) {
	d := fullData()
	frame := AppendFrame(nil, KindData, &d)
	r := bytes.NewReader(frame)
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(frame)
		if _, _, err := ReadHeader(r, DefaultMaxHeaderBytes, buf); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMatchTopic(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if !MatchTopic("sensors.kitchen.temp", "sensors.*.temp") {
			b.Fatal("no match")
		}
	}
}
