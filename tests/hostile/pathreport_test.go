package hostile

import (
	"errors"
	"testing"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/wire"
	"github.com/weida-go/weida/internal/rawpeer"
)

// Path reports (PROTOCOL.md §8.9): every way a REPORT stream can break the
// rules closes the connection with PROTOCOL_VIOLATION, on a victim that
// offers capability 2 and on one that does not.

// reportHello is a HELLO listing capability 2 (path_report).
func reportHello() []byte {
	h := wire.DefaultHello()
	h.Capabilities = []uint64{wire.CapabilityPathReport}
	return rawpeer.Encode(wire.KindHello, &h)
}

// reportStream is a REPORT head followed by raw record bytes.
func reportStream(records ...[]byte) []byte {
	return rawpeer.Cat(append([][]byte{rawpeer.Encode(wire.KindReport, wire.ReportHead{})}, records...)...)
}

func goodRecord() []byte {
	return wire.AppendReportRecord(nil, &wire.PathReport{RTTMicros: wire.Some[uint64](1500)})
}

type reportAttack struct {
	name  string
	hello []byte   // nil: a HELLO without capability 2
	open  [][]byte // uni streams written and left open (no FIN)
	uni   [][]byte // uni streams written and finished
	bidi  bool     // a REPORT opening a bidi stream instead
}

func reportAttacks() []reportAttack {
	cut := goodRecord()
	return []reportAttack{
		{name: "REPORT without the capability agreed", uni: [][]byte{reportStream(goodRecord())}},
		{name: "second REPORT stream", hello: reportHello(), open: [][]byte{reportStream(goodRecord())}, uni: [][]byte{reportStream()}},
		{name: "record len 257", hello: reportHello(), uni: [][]byte{reportStream([]byte{0x41, 0x01})}},
		{name: "record len 2^62-1", hello: reportHello(), uni: [][]byte{reportStream([]byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF})}},
		{name: "record that is an array", hello: reportHello(), uni: [][]byte{reportStream([]byte{0x02, 0x81, 0x00})}},
		{name: "record with a text key", hello: reportHello(), uni: [][]byte{reportStream([]byte{0x04, 0xA1, 0x61, 0x78, 0x01})}},
		{name: "record with a negative key", hello: reportHello(), uni: [][]byte{reportStream([]byte{0x03, 0xA1, 0x20, 0x01})}},
		{name: "record with rtt_us as text", hello: reportHello(), uni: [][]byte{reportStream([]byte{0x04, 0xA1, 0x00, 0x61, 0x78})}},
		{name: "empty record", hello: reportHello(), uni: [][]byte{reportStream([]byte{0x00})}},
		{name: "record cut short by FIN", hello: reportHello(), uni: [][]byte{reportStream(goodRecord(), cut[:len(cut)-1])}},
		{name: "head that is not a map", hello: reportHello(), uni: [][]byte{{0x57, 0x08, 0x00}}},
		{name: "REPORT on a bidi stream", hello: reportHello(), bidi: true},
	}
}

// TestServerRejectsBadReports runs every reportAttack against a victim
// with path reports on; the bystander keeps its connection throughout.
func TestServerRejectsBadReports(t *testing.T) {
	v := newVictim(t, weida.Config{PathReports: true})
	for _, tc := range reportAttacks() {
		t.Run(tc.name, func(t *testing.T) {
			c, err := rawpeer.Dial(ctxFor(t), v.url(echoPath), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			hello := tc.hello
			if hello == nil {
				hello = rawpeer.Hello()
			}
			mustSend(t, c.Uni(hello))
			for _, b := range tc.open {
				_, err := c.UniOpen(b)
				mustSend(t, err)
			}
			for _, b := range tc.uni {
				mustSend(t, c.Uni(b))
			}
			if tc.bidi {
				_, err := c.Bidi(reportStream(goodRecord()), true)
				mustSend(t, err)
			}
			wantViolation(t, c)
			if n := v.bystander.PeerCount(); n != 1 {
				t.Fatalf("the bystander lost its connection (%d live)", n)
			}
		})
	}
	v.stillServes(t)
	v.settled(t)
}

// TestReportToAVictimWithoutThem: a victim that never lists capability 2
// refuses a well-formed REPORT at its preamble, before the HELLO too (no
// HELLO could ever agree it).
func TestReportToAVictimWithoutThem(t *testing.T) {
	v := newVictim(t, weida.Config{})
	for _, withHello := range []bool{true, false} {
		c, err := rawpeer.Dial(ctxFor(t), v.url(echoPath), nil)
		if err != nil {
			t.Fatal(err)
		}
		if withHello {
			mustSend(t, c.Uni(reportHello()))
		}
		mustSend(t, c.Uni(reportStream(goodRecord())))
		wantViolation(t, c)
		c.Close()
	}
	v.stillServes(t)
}

// TestReportAccepted: well-formed records, an unknown key among them, then
// a clean FIN, leave the connection serving.
func TestReportAccepted(t *testing.T) {
	v := newVictim(t, weida.Config{PathReports: true})
	c, err := rawpeer.Dial(ctxFor(t), v.url(echoPath), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mustSend(t, c.Uni(reportHello()))
	unknownKey := []byte{0x07, 0xA2, 0x01, 0x0A, 0x18, 0x40, 0x61, 0x78}
	mustSend(t, c.Uni(reportStream(goodRecord(), unknownKey, goodRecord())))
	s, err := c.Bidi(rawpeer.Data(echoPath, []byte("ping")), true)
	mustSend(t, err)
	kind, _, err := rawpeer.ReadFrame(s)
	if err != nil || kind != wire.KindData {
		t.Fatalf("reply: kind %v, %v (alive %v)", kind, err, c.Alive())
	}
	if !c.Alive() {
		t.Fatal("the victim closed a connection whose REPORT stream kept the rules")
	}
}

// TestClientRejectsBadReport: a hostile server sending an oversize record
// to a client with path reports on is closed with PROTOCOL_VIOLATION.
func TestClientRejectsBadReport(t *testing.T) {
	cv := newClientVictimWith(t, weida.Config{PathReports: true})
	hs := startHostileServer(t, func(c *rawpeer.Conn) {
		if c.Uni(reportHello()) == nil {
			_ = c.Uni(reportStream([]byte{0x41, 0x01}))
		}
	})
	r := cv.rt.Requester(weida.TrustByAddress(), weida.WithReconnect(weida.NeverReconnect()))
	defer r.Close()
	if err := r.Connect(ctxFor(t), hs.url("/x")); err != nil && !errors.Is(err, weida.ErrProtocol) {
		t.Fatalf("connect: %v", err)
	}
	wantViolation(t, hs.next(t))
	cv.stillServes(t)
}

func wantViolation(t *testing.T, c *rawpeer.Conn) {
	t.Helper()
	code, err := c.ClosedWith(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	if code != wire.CodeProtocolViolation {
		t.Fatalf("closed with %s, want PROTOCOL_VIOLATION", code)
	}
}
