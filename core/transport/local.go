package transport

import (
	"context"
	"errors"
	"strconv"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/wire"
)

// Local transports (PROTOCOL.md §12) carry the same frames, HELLO and
// negotiation as QUIC without TLS. A Conn over one holds a localLink
// instead of a *quic.Conn; everything above the stream halves is shared.
// What differs: every stream is its own pipe pair or OS connection; a
// socket carries no stream kind, so its accepting side dispatches by path
// alone (in process the opener's intent is known); HELLO flows on a control
// stream; and the receipt is the FIN reaching the peer's buffer — there is
// no acknowledgement to wait for beyond it.

// MaxLocalStreams is max_local_streams: live streams one side of a local
// connection may have open; an open at the cap waits.
const MaxLocalStreams = 255

// localLink is the connection beneath a Conn on a local transport.
type localLink interface {
	// control is the stream HELLO flows on, both ways; nothing else does.
	control() localStream
	// open opens a stream toward the peer, waiting at MaxLocalStreams;
	// exchange says whether this side will read a reply on it.
	open(ctx context.Context, exchange bool) (localStream, error)
	// accept returns the next stream the peer opened; an error means the
	// link ended.
	accept() (localStream, error)
	// close ends the link; the peer learns code and reason.
	close(code wire.AppCode, reason string)
	// done is closed when the link ended; cause then says why, as quic-go
	// would (a *quic.ApplicationError), so lossError classifies both.
	done() <-chan struct{}
	cause() error
	// awaitConsumed waits until the peer completed every stream this side
	// opened (read it to the end, stopped or reset it).
	awaitConsumed(ctx context.Context) error
	// addrs name the two ends for logs: bus or socket path.
	addrs() (local, remote string)
	// peer is the kernel-proved principal; false in process.
	peer() (LocalPeer, bool)
}

// localStream is one local stream seen from one end.
type localStream interface {
	bidiHalf
	TryWriteAll([]byte) error
	// oneWay declares that nothing will be written back: the opener's
	// reply half, if it waits for one, ends without a header.
	oneWay()
	// intent says whether the opener will read a reply, where the
	// transport can know it (in process); false known on a socket, whose
	// wire has no stream kind.
	intent() (exchange, known bool)
}

// LocalPeer is the principal the kernel proved for a local socket peer
// (SO_PEERCRED). A PID is an observation: never authorize on it.
type LocalPeer struct {
	UID, GID uint32
	PID      int32 // 0 where the platform does not report it
}

// String prints the principal as "uid=1000 gid=1000 pid=4242" (no pid
// where none was reported).
func (p LocalPeer) String() string {
	s := "uid=" + strconv.FormatUint(uint64(p.UID), 10) + " gid=" + strconv.FormatUint(uint64(p.GID), 10)
	if p.PID != 0 {
		s += " pid=" + strconv.FormatInt(int64(p.PID), 10)
	}
	return s
}

// PathAnswerer is implemented by a Handler that can say whether a path
// answers exchanges. Local transports have no stream kinds, so the
// accepting side asks it (PROTOCOL.md §12: a replier path answers on the
// same connection; other paths never write back). A Handler without it
// receives every local stream as a one-way transfer.
type PathAnswerer interface {
	AnswersExchanges(path string) bool
}

// startLocal runs the control stream and the accept loop of a local Conn.
func (c *Conn) startLocal() {
	c.wg.Add(3)
	go c.watchLocalClose()
	go c.serveControl()
	go c.acceptLocal()
}

func (c *Conn) watchLocalClose() {
	defer c.wg.Done()
	<-c.local.done()
	cause := c.local.cause()
	if cause == nil {
		cause = errors.New("connection closed")
	}
	c.finish(lossError(cause))
}

// serveControl reads the peer's HELLO from the control stream, then holds
// it: any frame after HELLO is a violation, and its end is the peer's.
func (c *Conn) serveControl() {
	defer c.wg.Done()
	s := c.local.control()
	p, err := c.readPreamble(s)
	if err != nil {
		return
	}
	if p.Kind != wire.KindHello {
		c.violation("the control stream must open with HELLO, not " + kindName(p.Kind))
		return
	}
	hdr, err := c.readHeaderBody(s, p)
	if err != nil {
		return
	}
	c.onHello(hdr)
	var b [1]byte
	if n, _ := s.Read(b[:]); n > 0 {
		c.violation("bytes after HELLO on the control stream")
	}
}

// localHello is this side's HELLO on a local link. It is the QUIC HELLO:
// the datagram capability follows datagram_receive_bytes on every
// transport (a local flow carries its datagrams itself, local_flow.go).
// Path reports are QUIC only (§8.9), so a local HELLO never lists them.
func (c *Conn) localHello() wire.Hello {
	cfg := c.cfg
	cfg.PathReports = false
	return cfg.hello()
}

func (c *Conn) sendLocalHello() error {
	h := c.localHello()
	_, err := c.local.control().Write(wire.AppendFrame(nil, wire.KindHello, &h))
	if err != nil {
		select {
		case <-c.negotiated:
			if c.negErr != nil {
				// The peer's HELLO came first and failed negotiation, which
				// closed the link under this write: start reports that.
				return nil
			}
		default:
		}
	}
	return err
}

func (c *Conn) acceptLocal() {
	defer c.wg.Done()
	for {
		s, err := c.local.accept()
		if err != nil {
			return
		}
		c.dispatchLocal(s)
	}
}

// serveLocal reads a local stream's preamble and header and dispatches it:
// DATA is an exchange when the opener will read a reply (known in process)
// or, on a socket, when its path answers exchanges; every other frame goes
// the way a QUIC uni stream would.
func (c *Conn) serveLocal(s localStream) {
	p, err := c.readPreamble(s)
	if err != nil {
		s.oneWay()
		return
	}
	if p.Kind == wire.KindHello {
		c.violation("HELLO outside the control stream")
		return
	}
	if !c.awaitNegotiated() {
		s.CancelRead(quic.StreamErrorCode(wire.CodeCanceled))
		s.oneWay()
		return
	}
	if c.draining.Load() {
		s.CancelRead(quic.StreamErrorCode(wire.CodeShutdown))
		s.oneWay()
		return
	}
	hdr, err := c.readHeaderBody(s, p)
	if err != nil {
		s.oneWay()
		return
	}
	if p.Kind == wire.KindData {
		c.dispatchLocalData(hdr, s)
		return
	}
	s.oneWay()
	if p.Kind == wire.KindSubscribe && !c.subscriberReachable() {
		// Nothing could be sent to it: refused, never recorded (§12).
		s.CancelRead(quic.StreamErrorCode(wire.CodeRejected))
		return
	}
	c.dispatchUni(p.Kind, hdr, s)
	switch p.Kind {
	case wire.KindSubscribe, wire.KindUnsubscribe, wire.KindCredit:
		finishHeaderOnly(s)
	}
}

func (c *Conn) dispatchLocalData(hdr []byte, s localStream) {
	d, err := wire.DecodeData(hdr)
	if err == nil {
		err = d.CheckInitiating()
	}
	if err != nil {
		s.oneWay()
		c.violation(err.Error())
		return
	}
	exchange, known := s.intent()
	if !known {
		pa, ok := c.handler.(PathAnswerer)
		exchange = ok && pa.AnswersExchanges(d.Endpoint.V)
	}
	if exchange {
		c.handler.Exchange(c, newExchange(c, s, d))
		return
	}
	s.oneWay()
	c.handler.Data(c, newInStream(c, s, d))
}
