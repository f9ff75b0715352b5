package hostile

import (
	"context"
	"testing"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/wire"
	"github.com/weida-go/weida/internal/rawpeer"
)

// TestClientRefusesUnaskedStreams: a hostile server opens streams toward a
// weida Requester, which serves nothing. Each is refused with its exact
// stop code (and ERROR code on an exchange), frames a dialling side may
// ignore are ignored, and the connection survives to carry a request.
func TestClientRefusesUnaskedStreams(t *testing.T) {
	cases := []refusal{
		{name: "DATA toward a requester", frame: rawpeer.Data("/x", []byte("unasked")), want: wire.CodeUnknownEndpoint},
		{name: "DATA naming another path", frame: rawpeer.Data("/elsewhere", []byte("unasked")), want: wire.CodeUnknownEndpoint},
		{name: "exchange toward a requester", bidi: true, frame: rawpeer.Data("/x", []byte("unasked")),
			wantError: wire.ErrorUnknownEndpoint, want: wire.CodeUnknownEndpoint},
		{name: "CURSOR for report_id 9, never handed out", frame: rawpeer.Encode(wire.KindCursor, &wire.CursorHead{ReportID: 9}),
			want: wire.CodeCanceled},
	}
	cv := newClientVictim(t)
	conns := make(chan *rawpeer.Conn, 1)
	hs := startHostileServer(t, func(c *rawpeer.Conn) {
		if c.Uni(rawpeer.Hello()) != nil {
			return
		}
		conns <- c
		// Answer the one request the test makes at the end.
		if req, err := c.AcceptRequest(context.Background(), 1<<10); err == nil {
			_ = req.Answer(rawpeer.Reply(req.Payload))
		}
	})
	r := cv.rt.Requester(weida.TrustByAddress(), weida.WithReconnect(weida.NeverReconnect()))
	defer r.Close()
	if err := r.Connect(ctxFor(t), hs.url("/x")); err != nil {
		t.Fatalf("connect: %v", err)
	}
	c := <-conns
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stream interface{ Context() context.Context }
			if tc.bidi {
				s, err := c.Bidi(tc.frame, false)
				mustSend(t, err)
				if code := readErrorReply(t, s); code != tc.wantError {
					t.Fatalf("reply half carried ERROR %d, want %d", code, tc.wantError)
				}
				stream = s
			} else {
				s, err := c.UniOpen(tc.frame)
				mustSend(t, err)
				stream = s
			}
			code, err := rawpeer.StopCode(ctxFor(t), stream)
			if err != nil {
				t.Fatal(err)
			}
			if code != tc.want {
				t.Fatalf("stopped with %s, want %s", code, tc.want)
			}
		})
	}
	// Frames a side without publishers or queues may ignore (§8.4.2, §8.5 rule 6).
	for _, f := range [][]byte{
		rawpeer.Encode(wire.KindSubscribe, &wire.Subscribe{Endpoint: "/x", Filter: "#"}),
		rawpeer.Encode(wire.KindUnsubscribe, &wire.Subscribe{Endpoint: "/x", Filter: "nothing"}),
		rawpeer.Encode(wire.KindCredit, &wire.Credit{Endpoint: "/x", Filter: "", Limit: 1 << 40}),
	} {
		mustSend(t, c.Uni(f))
	}
	if got, err := r.Request(ctxFor(t), []byte("still here"), 1<<10); err != nil || string(got) != "still here" {
		t.Fatalf("request after the unasked streams: %q, %v", got, err)
	}
	if !c.Alive() || r.PeerCount() != 1 {
		t.Fatal("the refusals closed the connection")
	}
	cv.stillServes(t)
}
