package transport

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/cursor"
	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/internal/ctxwatch"
	"github.com/weida-go/weida/core/wire"
)

// maxReasonLen keeps CONNECTION_CLOSE reasons inside one packet: quic-go
// silently drops a close whose reason does not fit (spec README).
const maxReasonLen = 180

// Conn is one negotiated weida connection, over QUIC or over a local
// transport (local.go).
type Conn struct {
	qc       *quic.Conn // nil on a local transport
	local    localLink  // nil on QUIC
	cfg      Config
	dialling bool
	path     string // the dialled endpoint path; empty on accepted connections
	handler  Handler
	receipts *receiptTracker
	peer     identity.Fingerprint
	hasPeer  bool

	negotiated chan struct{} // closed once the peer's HELLO was processed and agreed
	helloSeen  sync.Once
	agreed     wire.Agreed
	negErr     error // set before negotiated closes when negotiation failed

	draining atomic.Bool // refuse new inbound streams with SHUTDOWN (drain)

	reports *cursor.Registry[ReportSink] // report ids this side handed out (reports.go)
	paths   pathReports                  // REPORT streams (pathreport.go)

	replyWatches ctxwatch.Set // abandons a reply when the context Recv waits under ends
	// lastEndpoint is the path of the latest inbound stream (decodeInbound).
	lastEndpoint atomic.Pointer[string]

	closeOnce    sync.Once
	toldHandler  sync.Once // Handler.Closed runs once, after closeOnce
	done         chan struct{}
	ended        context.Context // canceled when done closes (AfterEnd)
	endedCancel  context.CancelFunc
	err          *errs.Error // why the connection ended; set before done closes
	wg           sync.WaitGroup
	workers      workerPool // local: goroutines serving inbound streams (workers.go)
	accepting    acceptors  // QUIC: goroutines accepting exchanges (acceptBidi)
	acceptingUni acceptors  // QUIC: goroutines accepting uni streams (acceptUni)
}

// newLocalConn wraps a local link; path is the dialled path (empty when
// accepted). Its receipts never see a qlog event: they resolve at Finish.
func newLocalConn(l localLink, cfg Config, dialling bool, path string, h Handler) *Conn {
	c := &Conn{
		local: l, cfg: cfg, dialling: dialling, path: path, handler: h,
		receipts:   newReceiptTracker(dialling),
		workers:    workerPool{handoff: make(chan localStream, maxIdleWorkers)},
		negotiated: make(chan struct{}),
		done:       make(chan struct{}),
		reports:    cursor.NewRegistry[ReportSink](0),
	}
	c.ended, c.endedCancel = context.WithCancel(context.Background())
	return c
}

func newConn(qc *quic.Conn, cfg Config, dialling bool, h Handler, rt *receiptTracker) *Conn {
	c := &Conn{
		qc: qc, cfg: cfg, dialling: dialling, handler: h, receipts: rt,
		negotiated: make(chan struct{}),
		done:       make(chan struct{}),
		reports:    cursor.NewRegistry[ReportSink](0),
	}
	c.ended, c.endedCancel = context.WithCancel(context.Background())
	if fp, ok := identity.PeerFingerprint(qc.ConnectionState().TLS); ok {
		c.peer, c.hasPeer = fp, true
	}
	rt.qc.Store(qc)
	return c
}

// start runs the HELLO exchange and the accept loops. It returns once
// negotiation succeeded, failed or ctx ended; on failure the connection is
// closed and the error says why.
func (c *Conn) start(ctx context.Context) error {
	if c.local != nil {
		c.startLocal()
	} else {
		c.wg.Add(3)
		c.accepting.n.Store(1)
		c.acceptingUni.n.Store(1)
		context.AfterFunc(c.qc.Context(), c.watchClose) // no goroutine while the connection lives
		go c.acceptUni()
		go c.acceptBidi()
	}
	if err := c.sendHello(); err != nil {
		return c.helloWriteFailed(err)
	}
	timer := time.NewTimer(c.cfg.Limits.HelloTimeout)
	defer timer.Stop()
	select {
	case <-c.negotiated:
		if c.negErr != nil {
			return c.negErr
		}
		return nil
	case <-c.done:
		return c.err
	case <-timer.C:
		c.closeWith(wire.CodeNegotiationFailed, "no HELLO within the hello timeout")
		return errs.New(errs.KindNegotiation, "negotiation failed: the peer sent no HELLO within %v", c.cfg.Limits.HelloTimeout)
	case <-ctx.Done():
		c.closeWith(wire.CodeNoError, "dial abandoned")
		return errs.Wrap(errs.KindCanceled, ctx.Err(), "connect abandoned")
	}
}

// helloWriteFailed reports a HELLO that could not be written. A write
// fails when the peer already closed, and a peer that refused this side's
// HELLO (NEGOTIATION_FAILED) may close before writing its own: its close
// says why far better than the broken write, so the close is awaited
// briefly (it is already on its way) before the write error is reported.
func (c *Conn) helloWriteFailed(err error) error {
	grace := time.NewTimer(helloCloseGrace)
	defer grace.Stop()
	select {
	case <-c.done:
		return c.err
	case <-grace.C:
		c.closeWith(wire.CodeInternal, "could not send HELLO")
		return lossError(err)
	}
}

// helloCloseGrace bounds helloWriteFailed's wait for the peer's close.
const helloCloseGrace = time.Second

func (c *Conn) sendHello() error {
	if c.local != nil {
		return c.sendLocalHello()
	}
	s, err := c.qc.OpenUniStream()
	if err != nil {
		return err
	}
	c.receipts.credit.countOpened(streamUni)
	h := c.cfg.hello()
	if _, err := s.Write(wire.AppendFrame(nil, wire.KindHello, &h)); err != nil {
		return err
	}
	return s.Close()
}

// onHello negotiates with the peer's HELLO (exactly one is allowed).
func (c *Conn) onHello(hdr []byte) {
	first := false
	c.helloSeen.Do(func() { first = true })
	if !first {
		c.violation("second HELLO on the connection")
		return
	}
	theirs, err := wire.DecodeHello(hdr)
	if err != nil {
		c.violation(err.Error())
		return
	}
	ours := c.cfg.hello()
	if c.local != nil {
		ours = c.localHello()
	}
	agreed, err := wire.Negotiate(&ours, &theirs)
	if err != nil {
		c.negErr = errs.Wrap(errs.KindNegotiation, err, "")
		close(c.negotiated)
		c.closeWith(wire.CodeNegotiationFailed, err.Error())
		return
	}
	c.agreed = agreed
	close(c.negotiated)
	c.startPathReports()
}

// awaitNegotiated parks a stream until negotiation succeeded (PROTOCOL.md
// §3.2); false means the connection is unusable and the stream is dropped.
func (c *Conn) awaitNegotiated() bool {
	select { // the usual case, settled long ago: one check, no two-way select
	case <-c.negotiated:
		return c.negErr == nil
	default:
	}
	select {
	case <-c.negotiated:
		return c.negErr == nil
	case <-c.done:
		return false
	}
}

// watchClose ends the Conn once quic-go's connection ended; it runs when
// the connection's context is done (context.AfterFunc).
func (c *Conn) watchClose() {
	defer c.wg.Done()
	cause := context.Cause(c.qc.Context())
	if cause == nil {
		cause = errors.New("connection closed")
	}
	c.finish(lossError(cause))
}

// finish ends the connection with e, unless it ended already, and tells
// the Handler why it ended (once).
func (c *Conn) finish(e *errs.Error) {
	c.end(e)
	c.toldHandler.Do(func() {
		if c.handler != nil {
			c.handler.Closed(c, c.err)
		}
	})
}

// end marks the connection ended with e unless it ended already: Err, Done
// and every outstanding receipt see it at once. Only finish tells the
// Handler, so an opener that learns of the end first (quicOpenError) never
// runs Handler code on its own goroutine, under whatever locks it holds.
func (c *Conn) end(e *errs.Error) {
	c.closeOnce.Do(func() {
		c.err = e
		close(c.done)
		c.endedCancel()
		c.receipts.fail(e)
		c.reports.Close()
		c.replyWatches.Close()
	})
}

// closeWith closes the connection with an application code and a short reason.
func (c *Conn) closeWith(code wire.AppCode, reason string) {
	if len(reason) > maxReasonLen {
		reason = reason[:maxReasonLen]
	}
	if c.local != nil {
		c.local.close(code, reason)
		return
	}
	_ = c.qc.CloseWithError(quic.ApplicationErrorCode(code), reason)
}

// violation closes the connection with PROTOCOL_VIOLATION (PROTOCOL.md §14.1).
func (c *Conn) violation(reason string) { c.closeWith(wire.CodeProtocolViolation, reason) }

// Close closes the connection with code and reason and waits for its
// goroutines to end. A graceful close (SHUTDOWN, NO_ERROR) first sends the
// acknowledgements this side owes (ackdebt.go), so no sender whose bytes
// arrived is left with Indeterminate.
func (c *Conn) Close(code wire.AppCode, reason string) {
	c.closeGraceful(code, reason)
	c.wg.Wait()
}

// closeGraceful is closeWith, after the owed acknowledgements when code is
// a graceful one.
func (c *Conn) closeGraceful(code wire.AppCode, reason string) {
	if c.local == nil && (code == wire.CodeShutdown || code == wire.CodeNoError) {
		c.receipts.awaitAcksSent(c.done)
	}
	c.closeWith(code, reason)
}

// CloseAsync closes the connection with code and reason without waiting for
// its goroutines, so a Handler may call it from inside a callback (Close
// would wait for the very goroutine it runs on).
func (c *Conn) CloseAsync(code wire.AppCode, reason string) { c.closeWith(code, reason) }

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// AfterEnd arranges for f to run on its own goroutine once the connection
// ended (context.AfterFunc: nothing waits while it lives). stop cancels
// that unless f already started.
func (c *Conn) AfterEnd(f func()) (stop func() bool) { return context.AfterFunc(c.ended, f) }

// Err says why the connection ended; nil while it lives.
func (c *Conn) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// Agreed is the negotiation result; valid once the connection was returned.
func (c *Conn) Agreed() wire.Agreed { return c.agreed }

// Peer is the fingerprint the peer proved in the handshake; false for an
// anonymous client.
func (c *Conn) Peer() (identity.Fingerprint, bool) { return c.peer, c.hasPeer }

// Path is the endpoint path this connection was dialled for (one
// connection per dialled path); empty on an accepted connection.
func (c *Conn) Path() string { return c.path }

// Dialling reports whether this side dialled the connection.
func (c *Conn) Dialling() bool { return c.dialling }

// LocalAddr and RemoteAddr are the UDP addresses of the connection; on a
// local transport, the bus name or socket path.
func (c *Conn) LocalAddr() string {
	if c.local != nil {
		a, _ := c.local.addrs()
		return a
	}
	return c.qc.LocalAddr().String()
}

// RemoteAddr: see LocalAddr.
func (c *Conn) RemoteAddr() string {
	if c.local != nil {
		_, a := c.local.addrs()
		return a
	}
	return c.qc.RemoteAddr().String()
}

// IsLocal reports whether the connection runs over a local transport.
func (c *Conn) IsLocal() bool { return c.local != nil }

// LocalPeer is the principal the kernel proved for a local socket peer;
// false over QUIC and in process.
func (c *Conn) LocalPeer() (LocalPeer, bool) {
	if c.local == nil {
		return LocalPeer{}, false
	}
	return c.local.peer()
}

// OutstandingReceipts returns the receipts of outgoing halves (finished or
// still open) that have not resolved yet; drain waits on them.
func (c *Conn) OutstandingReceipts() []*Receipt { return c.receipts.outstanding() }

// StopAdmission makes the connection refuse every new inbound stream with
// SHUTDOWN (STOP_SENDING, plus RESET of a reply half), as a draining side
// does (PROTOCOL.md §11.8). Streams already dispatched are unaffected.
func (c *Conn) StopAdmission() { c.draining.Store(true) }
