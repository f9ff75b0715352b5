package transport

import (
	"context"
	"errors"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/wire"
)

// Local preambles: the first byte of every unix OS connection (PROTOCOL.md
// §12). Transfer and reverse connections follow it with the group token the
// accepting side gave the control connection.
const (
	preambleControl  = 0x01
	preambleTransfer = 0x02
	preambleReverse  = 0x03

	groupTokenLen = 16

	// MaxParkedReverse is max_parked_reverse: reverse connections a dialling
	// side keeps parked so the accepting side can open streams toward it.
	MaxParkedReverse = 8
)

// groupToken names a control connection's group on its listener.
type groupToken [groupTokenLen]byte

// unixLink is one unix connection, seen from one side: a control
// connection carrying HELLO, one OS connection per stream, and — on the
// accepting side — reverse connections the dialler parked. Its end is
// learned from the kernel: the control connection's EOF.
type unixLink struct {
	dialling bool
	sockPath string
	token    groupToken
	ctrl     *net.UnixConn
	ctrlEnd  unixControl
	cred     LocalPeer
	hasCred  bool
	binder   *unixBinder // the accepting side's listener; nil when dialling
	slots    localSlots  // streams this side opened that are live
	nextID   atomic.Int64
	incoming chan *unixStream // streams the peer opened, not yet accepted
	doneCh   chan struct{}

	mu         sync.Mutex
	live       map[*unixStream]struct{}
	accepted   int             // streams in live the peer opened
	waiting    []*unixStream   // streams the peer opened past maxAcceptedStreams, in the order they came
	room       *sync.Cond      // on mu: an accepted stream ended, or the link
	parked     []*net.UnixConn // accepting side: reverse connections to open on
	parkedC    chan struct{}   // closed and replaced when one is parked
	everParked bool            // accepting side: the dialler parked at least one
	ended      bool
	err        error
}

func newUnixLink(dialling bool, sockPath string, ctrl *net.UnixConn, token groupToken) *unixLink {
	l := &unixLink{dialling: dialling, sockPath: sockPath, ctrl: ctrl, token: token,
		incoming: make(chan *unixStream, MaxLocalStreams), doneCh: make(chan struct{}),
		live: make(map[*unixStream]struct{}), parkedC: make(chan struct{})}
	l.room = sync.NewCond(&l.mu)
	l.ctrlEnd = unixControl{l: l}
	l.cred, l.hasCred = peerCredentials(ctrl)
	l.slots.init()
	return l
}

func (l *unixLink) control() localStream { return &l.ctrlEnd }

func (l *unixLink) id() quic.StreamID { return quic.StreamID(l.nextID.Add(1)) }

// open opens a stream toward the peer: a new transfer connection when this
// side dialled, a parked reverse connection when it accepted.
func (l *unixLink) open(ctx context.Context, exchange bool) (localStream, error) {
	if err := l.slots.acquire(ctx, l.doneCh); err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, l.cause()
	}
	var conn *net.UnixConn
	var err error
	if l.dialling {
		dialCtx := ctx
		if ctx.Err() != nil {
			// An open that must not wait (OpenFlowNow) took a free slot: a
			// local connect is not a wait, so it still gets its connection.
			dialCtx = context.WithoutCancel(ctx)
		}
		conn, err = l.dialStream(dialCtx, preambleTransfer)
	} else {
		conn, err = l.takeParked(ctx)
	}
	if err != nil {
		l.slots.release()
		return nil, err
	}
	s := newUnixStream(l, conn, nil, l.id(), l.slots.release)
	if !l.track(s) {
		return nil, l.cause()
	}
	if !exchange {
		go s.awaitPeerDone()
	}
	return s, nil
}

// dialStream connects a transfer or reverse connection of this group.
func (l *unixLink) dialStream(ctx context.Context, kind byte) (*net.UnixConn, error) {
	conn, err := l.connect(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Write(l.preamble(kind)); err != nil {
		_ = conn.Close()
		return nil, lossError(l.causeOr(err))
	}
	return conn, nil
}

// preamble is the local preamble of a transfer or reverse connection.
func (l *unixLink) preamble(kind byte) []byte {
	return append([]byte{kind}, l.token[:]...)
}

// connect dials the peer's socket. A full accept backlog (EAGAIN) is
// waited out with a short backoff, bounded by ctx and the link's life; any
// other failure means the peer's socket is gone, and so is the group.
func (l *unixLink) connect(ctx context.Context) (*net.UnixConn, error) {
	var d net.Dialer
	backoff := time.Millisecond
	for {
		c, err := d.DialContext(ctx, "unix", l.sockPath)
		if err == nil {
			return c.(*net.UnixConn), nil
		}
		if ctx.Err() != nil {
			return nil, errs.Wrap(errs.KindCanceled, ctx.Err(), "open abandoned")
		}
		if !errors.Is(err, syscall.EAGAIN) {
			l.end(peerClosedError())
			return nil, lossError(l.cause())
		}
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, errs.Wrap(errs.KindCanceled, ctx.Err(), "open abandoned")
		case <-l.doneCh:
			t.Stop()
			return nil, lossError(l.cause())
		}
		backoff = min(2*backoff, 50*time.Millisecond)
	}
}

// maxAcceptedStreams bounds the live streams a peer opened on one link:
// their descriptors, and what the application holds of them. The peer
// itself waits at MaxLocalStreams of its own, but it counts a stream over
// once its side closed, which for an exchange can come long before this
// side is done with it (a requester that abandons a reply a slow replier
// still holds). So the bound leaves room for those, and a stream beyond it
// waits unread for one to end, as a QUIC opener waits for stream credit.
const maxAcceptedStreams = 2 * MaxLocalStreams

// maxWaitingStreams bounds the streams that wait past maxAcceptedStreams.
// A peer within its max_local_streams never has more waiting that it has
// not left (each is live on its side), and those it left are closed when
// room is needed; one beyond them ignores its cap: it is reset
// LIMIT_EXCEEDED, and the process's descriptors stay bounded.
const maxWaitingStreams = MaxLocalStreams

// track records a live stream so the link's end closes it; false (and the
// stream aborted) when the link already ended, or when the peer opened it
// beyond maxAcceptedStreams and maxWaitingStreams, or left while it waited.
func (l *unixLink) track(s *unixStream) bool {
	accepted := s.onClose == nil
	l.mu.Lock()
	over, left := false, false
	if accepted {
		over, left = l.awaitRoomLocked(s)
	}
	ended := l.ended
	if !ended && !over && !left {
		l.live[s] = struct{}{}
		if accepted {
			l.accepted++
		}
	}
	l.mu.Unlock()
	if !ended && !over && !left {
		return true
	}
	if over && !ended {
		writeNow(s.conn, resetChunk(quic.StreamErrorCode(wire.CodeLimitExceeded)))
	}
	s.abort()
	if s.onClose != nil {
		s.onClose()
	}
	return false
}

// awaitRoomLocked waits, while maxAcceptedStreams of the peer's streams are
// live or others wait before it, for its turn at a free place (or the
// link's end). over: no room to wait either; left: the stream's peer left
// while it waited, or the listener is closing.
func (l *unixLink) awaitRoomLocked(s *unixStream) (over, left bool) {
	if l.ended || (l.accepted < maxAcceptedStreams && len(l.waiting) == 0) {
		return false, false
	}
	if len(l.waiting) >= maxWaitingStreams {
		l.dropLeftWaitersLocked()
	}
	if len(l.waiting) >= maxWaitingStreams {
		return true, false
	}
	l.waiting = append(l.waiting, s)
	for !l.ended && !s.waitLeft && !l.unbinding() && (l.accepted >= maxAcceptedStreams || l.waiting[0] != s) {
		l.room.Wait()
	}
	l.removeWaiterLocked(s)
	l.room.Broadcast() // the next in line looks again
	return false, s.waitLeft || l.unbinding()
}

// dropLeftWaitersLocked takes the waiting streams whose peer hung up (an
// open abandoned while it waited) out of the line, and wakes them to
// close: their requests were never handed to anyone.
func (l *unixLink) dropLeftWaitersLocked() {
	for _, w := range slices.Clone(l.waiting) {
		if peerHungUp(w.conn) {
			w.waitLeft = true
			l.removeWaiterLocked(w)
		}
	}
	l.room.Broadcast()
}

func (l *unixLink) removeWaiterLocked(s *unixStream) {
	if i := slices.Index(l.waiting, s); i >= 0 {
		l.waiting = slices.Delete(l.waiting, i, i+1)
	}
}

// hasEnded reports whether the link ended (set before done is closed).
func (l *unixLink) hasEnded() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ended
}

// unbinding reports whether the accepting side's listener is closing: a
// stream waiting for room then gives up, so the listener's close does not
// wait for it.
func (l *unixLink) unbinding() bool {
	select {
	case <-l.binderDone():
		return true
	default:
		return false
	}
}

// binderDone is closed once the accepting side's listener closes; nil (never
// ready) on the dialling side.
func (l *unixLink) binderDone() <-chan struct{} {
	if l.binder == nil {
		return nil
	}
	return l.binder.done
}

// wakeWaiters wakes the streams waiting for room, to look again.
func (l *unixLink) wakeWaiters() {
	l.mu.Lock()
	l.room.Broadcast()
	l.mu.Unlock()
}

func (l *unixLink) forget(s *unixStream) {
	l.mu.Lock()
	if _, ok := l.live[s]; ok && s.onClose == nil {
		l.accepted--
		l.room.Broadcast()
	}
	delete(l.live, s)
	l.mu.Unlock()
}

// deliver queues a stream the peer opened (a transfer connection it
// dialled to this accepting side).
func (l *unixLink) deliver(s *unixStream) {
	if !l.track(s) {
		return
	}
	select {
	case l.incoming <- s:
	case <-l.doneCh:
		l.forget(s)
		s.abort()
	case <-l.binderDone():
		l.forget(s)
		s.abort()
	}
}

func (l *unixLink) accept() (localStream, error) {
	select {
	case s := <-l.incoming:
		return s, nil
	case <-l.doneCh:
		return nil, l.cause()
	}
}

func (l *unixLink) close(code wire.AppCode, reason string) {
	l.end(&quic.ApplicationError{ErrorCode: quic.ApplicationErrorCode(code), ErrorMessage: reason})
}

// end ends the link once with err: every socket of the group is closed, so
// the peer learns it from the kernel.
func (l *unixLink) end(err error) {
	l.mu.Lock()
	if l.ended {
		l.mu.Unlock()
		return
	}
	l.ended, l.err = true, err
	live, parked := l.live, l.parked
	l.live, l.parked = nil, nil
	l.room.Broadcast()
	l.mu.Unlock()
	if l.binder != nil {
		l.binder.forget(l.token)
	}
	// The control connection first: a peer that sees a stream fail then
	// finds the group gone (peerGone), not a refusal.
	_ = l.ctrl.Close()
	close(l.doneCh)
	for s := range live {
		s.abort()
	}
	for _, c := range parked {
		_ = c.Close()
	}
}

func (l *unixLink) done() <-chan struct{} { return l.doneCh }

func (l *unixLink) cause() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// causeOr is the link's cause once it ended, else err.
func (l *unixLink) causeOr(err error) error {
	if c := l.cause(); c != nil {
		return c
	}
	return err
}

// peerGone reports whether the group is over, asking the kernel whether the
// peer closed the control connection when this side has not noticed yet.
func (l *unixLink) peerGone() bool {
	select {
	case <-l.doneCh:
		return true
	default:
	}
	if peerClosed(l.ctrl) {
		l.end(peerClosedError())
		return true
	}
	return false
}

func (l *unixLink) awaitConsumed(ctx context.Context) error {
	err := l.slots.awaitIdle(ctx, l.doneCh)
	if err != nil && ctx.Err() == nil {
		return lossError(l.cause())
	}
	return err
}

func (l *unixLink) addrs() (string, string) { return l.sockPath, l.sockPath }

func (l *unixLink) peer() (LocalPeer, bool) { return l.cred, l.hasCred }

func peerClosedError() error {
	return &errs.Error{Kind: errs.KindConnectionLost, Cause: errs.CausePeerClosed,
		Msg: "connection lost: the local peer closed its control connection"}
}

// unixControl is the control connection as a stream: HELLO is written and
// read raw on it, and its end is the peer's.
type unixControl struct{ l *unixLink }

func (u *unixControl) Write(b []byte) (int, error) { return u.l.ctrl.Write(b) }

// Read reads the control connection; its end ends the link.
func (u *unixControl) Read(b []byte) (int, error) {
	n, err := u.l.ctrl.Read(b)
	if err != nil {
		u.l.end(peerClosedError())
	}
	return n, err
}

func (u *unixControl) Close() error                     { return nil }
func (u *unixControl) CancelWrite(quic.StreamErrorCode) {}
func (u *unixControl) CancelRead(quic.StreamErrorCode)  {}
func (u *unixControl) StreamID() quic.StreamID          { return 0 }
func (u *unixControl) Context() context.Context         { return context.Background() }
func (u *unixControl) TryWriteAll([]byte) error         { return quic.ErrWouldBlock }
func (u *unixControl) oneWay()                          {}
func (u *unixControl) intent() (bool, bool)             { return false, false }
