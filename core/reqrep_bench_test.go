package weida_test

import (
	"context"
	"testing"

	weida "github.com/weida-go/weida/core"
)

// BenchmarkReqRep64KiB is one 64 KiB request echoed back per op, both ends
// in this process: "fresh" allocates every payload (Accept, Request),
// "lent" reads each into one buffer per end (AcceptAppend, RequestAppend),
// as a raw quic-go echo does. B/op shows the garbage proportional to the
// payload that lending removes.
func BenchmarkReqRep64KiB(b *testing.B) {
	const size = 64 << 10
	for _, lend := range []bool{false, true} {
		name := map[bool]string{false: "fresh", true: "lent"}[lend]
		b.Run(name, func(b *testing.B) {
			srv := runtimeWith(b, weida.Config{})
			rep, err := srv.Listener().Replier(benchPath)
			if err != nil {
				b.Fatal(err)
			}
			bnd := bindLoopback(b, srv)
			ctx := b.Context()
			go func() {
				buf := make([]byte, 0, size+1)
				for {
					var r *weida.Request
					var err error
					if lend {
						r, err = rep.AcceptAppend(ctx, buf, size)
					} else {
						r, err = rep.Accept(ctx, size)
					}
					if err != nil {
						return
					}
					_ = r.Reply(ctx, r.Payload())
				}
			}()
			req := runtimeWith(b, weida.Config{}).Requester(weida.TrustByAddress())
			if err := req.Connect(ctx, bnd.URL(benchPath)); err != nil {
				b.Fatal(err)
			}
			payload := make([]byte, size)
			reply := make([]byte, 0, size+1)
			roundTrip := func(ctx context.Context) error {
				var got []byte
				var err error
				if lend {
					got, err = req.RequestAppend(ctx, reply, payload, size)
				} else {
					got, err = req.Request(ctx, payload, size)
				}
				if err == nil && len(got) != size {
					b.Fatalf("a reply of %d bytes, want %d", len(got), size)
				}
				return err
			}
			for range warmupExchanges / 4 {
				if err := roundTrip(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if err := roundTrip(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
