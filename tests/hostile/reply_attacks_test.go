package hostile

import (
	"bytes"
	"errors"
	"testing"

	"github.com/quic-go/quic-go"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/wire"
	"github.com/weida-go/weida/internal/rawpeer"
)

// replyAttack is how a hostile server answers an exchange, and what the
// weida client must make of it.
type replyAttack struct {
	name  string
	reply []byte // the reply half's bytes, then FIN
	reset bool   // reset the reply half with CANCELED instead
	// close is the code the client closes the connection with; zero when
	// the connection must survive (a refusal, a typed failure).
	close wire.AppCode
	// wantErr is what the requester's Request returns (nil: the reply).
	wantErr error
	// wantStop is the STOP_SENDING code the client puts on the reply half
	// (a reply above the requester's ceiling), zero for none.
	wantStop wire.AppCode
}

// replyCeiling is the requester's byte ceiling for replies in these tests.
const replyCeiling = 1 << 10

func replyAttacks() []replyAttack {
	v := wire.CodeProtocolViolation
	out := []replyAttack{
		{name: "a good reply (control)", reply: rawpeer.Reply([]byte("fine"))},
		{name: "HELLO on the reply half", reply: rawpeer.Hello(), close: v, wantErr: weida.ErrProtocol},
		{name: "SUBSCRIBE on the reply half", reply: rawpeer.Encode(wire.KindSubscribe, &wire.Subscribe{Endpoint: "/x"}),
			close: v, wantErr: weida.ErrProtocol},
		{name: "CURSOR on the reply half", reply: rawpeer.Encode(wire.KindCursor, &wire.CursorHead{ReportID: 1}),
			close: v, wantErr: weida.ErrProtocol},
		{name: "ERROR without code", reply: rawpeer.Frame(wire.KindError, []byte{0xA1, 0x01, 0x63, 'w', 'h', 'y'}),
			close: v, wantErr: weida.ErrProtocol},
		{name: "ERROR with a trailing byte", reply: rawpeer.Frame(wire.KindError, []byte{0xA1, 0x00, 0x02, 0xFF}),
			close: v, wantErr: weida.ErrProtocol},
		{name: "ERROR code as text", reply: rawpeer.Frame(wire.KindError, []byte{0xA1, 0x00, 0x61, '2'}),
			close: v, wantErr: weida.ErrProtocol},
		{name: "ERROR UNKNOWN_ENDPOINT", reply: rawpeer.ErrorReply(wire.ErrorUnknownEndpoint), wantErr: weida.ErrUnknownEndpoint},
		{name: "ERROR REJECTED", reply: rawpeer.ErrorReply(wire.ErrorRejected), wantErr: weida.ErrRejected},
		{name: "ERROR UNSUPPORTED", reply: rawpeer.ErrorReply(wire.ErrorUnsupported), wantErr: weida.ErrUnsupported},
		{name: "ERROR INTERNAL", reply: rawpeer.ErrorReply(wire.ErrorInternal), wantErr: weida.ErrTransport},
		{name: "ERROR NO_REPLY", reply: rawpeer.ErrorReply(wire.ErrorNoReply), wantErr: weida.ErrNoReply},
		{name: "ERROR with unknown code 99", reply: rawpeer.ErrorReply(99), wantErr: weida.ErrTransport},
		{name: "reply above the requester's ceiling", reply: rawpeer.Reply(make([]byte, 256<<10)),
			wantErr: weida.ErrLimitExceeded, wantStop: wire.CodeRejected},
		{name: "reply half reset", reset: true, wantErr: weida.ErrCanceled},
	}
	for _, h := range negativeHeaders {
		if h.kind == wire.KindData {
			out = append(out, replyAttack{name: "reply DATA: " + h.name, reply: rawpeer.Frame(h.kind, h.header),
				close: v, wantErr: weida.ErrProtocol})
		}
	}
	return out
}

// replyPreambleAttacks break the reply half before its header is read:
// the preamble errors of PROTOCOL.md §5.4 and a FIN inside the header.
func replyPreambleAttacks() []replyAttack {
	v := wire.CodeProtocolViolation
	return []replyAttack{
		{name: "empty reply half", reply: []byte{}, close: v, wantErr: weida.ErrProtocol},
		{name: "bad magic on the reply half", reply: []byte{0x58, 0x01, 0x01, 0xA0}, close: v, wantErr: weida.ErrProtocol},
		{name: "kind 8 on the reply half", reply: []byte{0x57, 0x08, 0x00}, close: v, wantErr: weida.ErrProtocol},
		{name: "reply header_len above the limit", reply: []byte{0x57, 0x01, 0x80, 0x10, 0x00, 0x00}, close: v, wantErr: weida.ErrProtocol},
		{name: "FIN inside the reply header", reply: []byte{0x57, 0x01, 0x03, 0xA1}, close: v, wantErr: weida.ErrProtocol},
	}
}

// TestClientJudgesReplyHalves sends a request from a weida Requester to a
// raw server that answers with each replyAttack: the requester's error
// kind, the connection close code (or its survival), and the stop code on
// the reply half must be exact; the bystander stays served.
func TestClientJudgesReplyHalves(t *testing.T) { judgeReplies(t, replyAttacks()) }

// TestClientJudgesReplyPreambles is TestClientJudgesReplyHalves for a
// reply half broken before its header. SEMANTICS.md §6.3 makes a bad reply
// half Protocol, as the client's own PROTOCOL_VIOLATION close says; the
// client must not relabel its own verdict as a lost connection.
func TestClientJudgesReplyPreambles(t *testing.T) { judgeReplies(t, replyPreambleAttacks()) }

// judgeReplies runs each reply attack against a fresh requester of one
// client victim.
func judgeReplies(t *testing.T, cases []replyAttack) {
	cv := newClientVictim(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stops := make(chan wire.AppCode, 1)
			hs := startHostileServer(t, func(c *rawpeer.Conn) {
				if c.Uni(rawpeer.Hello()) != nil {
					return
				}
				req, err := c.AcceptRequest(ctxFor(t), 1<<20)
				if err != nil {
					return
				}
				if tc.reset {
					req.Stream.CancelWrite(quic.StreamErrorCode(wire.CodeCanceled))
					return
				}
				if tc.wantStop != 0 {
					// The reply stays unfinished so the stop is observable.
					_, _ = req.Stream.Write(tc.reply)
					code, err := rawpeer.StopCode(ctxFor(t), req.Stream)
					if err == nil {
						stops <- code
					}
					return
				}
				_ = req.Answer(tc.reply)
			})
			r := cv.rt.Requester(weida.TrustByAddress(), weida.WithReconnect(weida.NeverReconnect()))
			defer r.Close()
			if err := r.Connect(ctxFor(t), hs.url("/x")); err != nil {
				t.Fatalf("connect: %v", err)
			}
			c := hs.next(t)
			got, err := r.Request(ctxFor(t), []byte("question"), replyCeiling)
			switch {
			case tc.wantErr == nil && (err != nil || !bytes.Equal(got, []byte("fine"))):
				t.Fatalf("request: %q, %v; want the reply", got, err)
			case tc.wantErr != nil && !errors.Is(err, tc.wantErr):
				t.Fatalf("request: %v, want %v", err, tc.wantErr)
			}
			if tc.wantStop != 0 {
				if code := <-stops; code != tc.wantStop {
					t.Fatalf("the reply half was stopped with %s, want %s", code, tc.wantStop)
				}
			}
			if tc.close != 0 {
				code, err := c.ClosedWith(ctxFor(t))
				if err != nil {
					t.Fatal(err)
				}
				if code != tc.close {
					t.Fatalf("the client closed with %s, want %s", code, tc.close)
				}
			} else if !c.Alive() || r.PeerCount() != 1 {
				t.Fatal("a refusal or typed failure closed the connection")
			}
			cv.stillServes(t)
		})
	}
	cv.settled(t)
}
