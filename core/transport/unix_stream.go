package transport

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/wire"
)

// Chunk kinds on a unix transfer or reverse connection, after its local
// preamble. A unix socket cannot tell a writer's reset from its FIN, so
// every byte travels chunked (SEMANTICS.md §2.11): a cancel is never read
// as a complete payload.
const (
	chunkPayload = 0x00 // u32 little-endian length, then that many bytes
	chunkFIN     = 0x01
	chunkReset   = 0x02 // u64 little-endian code

	// maxChunk bounds one payload chunk; a longer write is split.
	maxChunk = 1 << 20
)

// unixStream is one end of a unix stream: one OS connection. The socket is
// closed once both directions are over on this end — written to FIN or
// RESET (or never to be written), and read to FIN or RESET (or abandoned) —
// and its opener's slot is given back then.
type unixStream struct {
	link *unixLink
	conn *net.UnixConn
	id   quic.StreamID
	r    *bufio.Reader

	// Reader state: one reader at a time (io.Reader's rule).
	remaining int  // payload bytes left in the current chunk
	sawChunk  bool // any chunk arrived (a bare EOF before one means no answer)

	writing      atomic.Bool   // a Write or the FIN is under way (CancelWrite must not interleave with it)
	canceled     atomic.Bool   // CancelWrite ran: a failing Write reports Canceled
	finning      atomic.Bool   // Close is writing the FIN: a peer's close after it is no refusal
	readCanceled atomic.Bool   // CancelRead ran: reads fail locally canceled
	stopCode     atomic.Uint64 // 1 + the code of a RESET chunk the accepting side wrote back on a one-way stream; 0 for none
	headTaken    atomic.Bool   // a reader may have read the first bytes back (awaitPeerDone: once stopCode is known)

	mu       sync.Mutex
	wDone    bool // nothing more will be written
	rDone    bool // nothing more will be read
	closed   bool
	sendDone chan struct{} // closed when wDone is set or the requester left, once asked for
	sdClosed bool
	peerLeft bool          // the peer closed its side first: a one-way stream's refusal, a requester's abandoned reply
	readEnd  chan struct{} // closed when rDone is set, once a requester watch asked for it
	reClosed bool
	onClose  func() // gives the opener's slot back; nil for accepted ends

	waitLeft bool // guarded by link.mu: its peer left while it waited for room
}

// readBufferSize covers a chunk head and a 1 KiB message in one read;
// larger reads bypass the buffer.
const readBufferSize = 2048

// newUnixStream wraps conn; r, when not nil, already buffers its first
// bytes. Otherwise a buffer is made at the first Read: the opener of a
// one-way stream never reads.
func newUnixStream(l *unixLink, conn *net.UnixConn, r *bufio.Reader, id quic.StreamID, onClose func()) *unixStream {
	return &unixStream{link: l, conn: conn, r: r, id: id, onClose: onClose}
}

// Write sends p as payload chunks, header and bytes in one writev.
func (s *unixStream) Write(p []byte) (int, error) {
	s.writing.Store(true)
	defer s.writing.Store(false)
	if s.canceled.Load() {
		// After writing is set: a CancelWrite either sees this write (and
		// cuts it) or came before it (and it does not start).
		return 0, errCanceledLocally()
	}
	n := 0
	for len(p) > 0 {
		k := min(len(p), maxChunk)
		var hdr [5]byte
		hdr[0] = chunkPayload
		binary.LittleEndian.PutUint32(hdr[1:], uint32(k))
		bufs := net.Buffers{hdr[:], p[:k]}
		if _, err := bufs.WriteTo(s.conn); err != nil {
			return n, s.writeFailed(err)
		}
		n += k
		p = p[k:]
	}
	return n, nil
}

// TryWriteAll never queues without waiting: a socket write may block, so
// a cursor writer falls back to Write.
func (s *unixStream) TryWriteAll([]byte) error { return quic.ErrWouldBlock }

// Close writes the FIN chunk. Once it is written the peer's kernel holds
// every byte and the FIN (an AF_UNIX write lands in the peer's receive
// queue), which is this transport's receipt. The write waits while the
// socket is full (a peer that does not read); CancelWrite cuts it short as
// it cuts a Write.
func (s *unixStream) Close() error {
	s.writing.Store(true) // first: a CancelWrite that sees finning must see writing too
	defer s.writing.Store(false)
	s.finning.Store(true)
	if s.canceled.Load() {
		return errCanceledLocally()
	}
	if _, err := s.conn.Write([]byte{chunkFIN}); err != nil {
		return s.writeFailed(err)
	}
	s.endWrite()
	return nil
}

// CancelWrite writes the RESET chunk with code, never waiting: it runs
// under its transfer's lock. A Write blocked on a full socket cannot be
// followed by a chunk head, and a full socket has no room for one, so the
// stream is cut short instead and the socket closed: the reader sees the
// stream end inside a chunk (or at a chunk's start, after at least one),
// which it reads as a reset too, never as a complete payload.
func (s *unixStream) CancelWrite(code quic.StreamErrorCode) {
	s.mu.Lock()
	done := s.wDone
	s.mu.Unlock()
	if done || s.canceled.Swap(true) {
		return
	}
	if s.writing.Load() {
		_ = s.conn.SetWriteDeadline(time.Unix(1, 0))
		s.cut()
		return
	}
	if !writeNow(s.conn, resetChunk(code)) {
		s.cut()
		return
	}
	s.endWrite()
}

// resetCode is the code of a RESET chunk the accepting side wrote back on
// a stream this side opened, when it refused it over its bound.
//
// Until a reader took the first bytes back, the socket's head is the first
// byte the peer wrote, so a peek there is the answer — unless a reader
// started meanwhile: then only what awaitPeerDone kept is (an exchange's
// reply reader reads the RESET chunk itself).
func (s *unixStream) resetCode() (uint64, bool) {
	if !s.headTaken.Load() {
		code, ok := parseResetChunk(peekHead(s.conn, resetChunkLen, false))
		if !s.headTaken.Load() {
			return code, ok
		}
	}
	code := s.stopCode.Load()
	return code - 1, code != 0
}

// parseResetChunk reads b as a whole RESET chunk.
func parseResetChunk(b []byte) (uint64, bool) {
	if len(b) != resetChunkLen || b[0] != chunkReset {
		return 0, false
	}
	return binary.LittleEndian.Uint64(b[1:]), true
}

// resetChunkLen is a RESET chunk's length: its kind and a u64 code.
const resetChunkLen = 9

// resetChunk is the RESET chunk carrying code.
func resetChunk(code quic.StreamErrorCode) []byte {
	b := make([]byte, resetChunkLen)
	b[0] = chunkReset
	binary.LittleEndian.PutUint64(b[1:], uint64(code))
	return b
}

// writeFailed classifies a failed write: the connection's loss when the
// peer is gone, otherwise the peer closed this stream — a unix peer refuses
// by closing, without a code.
func (s *unixStream) writeFailed(err error) error {
	s.endWrite()
	if s.canceled.Load() {
		return errCanceledLocally()
	}
	if s.link.peerGone() {
		return lossError(s.link.cause())
	}
	if s.onClose == nil {
		// An accepted end writes only replies: its peer closing is the
		// requester abandoning the reply.
		return errs.Wrap(errs.KindCanceled, err, "the requester abandoned the reply")
	}
	if errors.Is(err, net.ErrClosed) {
		return errCanceledLocally()
	}
	if code, ok := s.resetCode(); ok {
		return refusalError(code, "the local peer stopped reading")
	}
	return errs.Wrap(errs.KindRejected, err, "the local peer stopped reading")
}

func (s *unixStream) Read(p []byte) (int, error) {
	if s.readCanceled.Load() {
		return 0, errReadCanceled
	}
	if s.r == nil {
		s.headTaken.Store(true) // before the first byte is taken: resetCode's peek no longer sees the head
		s.r = bufio.NewReaderSize(s.conn, readBufferSize)
	}
	for s.remaining == 0 {
		if err := s.nextChunk(); err != nil {
			return 0, err
		}
	}
	n, err := s.r.Read(p[:min(len(p), s.remaining)])
	s.remaining -= n
	if err != nil {
		return n, s.readFailed(err)
	}
	return n, nil
}

// nextChunk reads a chunk head: payload sets remaining; FIN is io.EOF;
// RESET is the writer's code; anything else closes the connection.
func (s *unixStream) nextChunk() error {
	kind, err := s.r.ReadByte()
	if err != nil {
		return s.readFailed(err)
	}
	s.sawChunk = true
	switch kind {
	case chunkPayload:
		var b [4]byte
		if _, err := io.ReadFull(s.r, b[:]); err != nil {
			return s.readFailed(err)
		}
		s.remaining = int(binary.LittleEndian.Uint32(b[:]))
		return nil
	case chunkFIN:
		s.endRead()
		return io.EOF
	case chunkReset:
		var b [8]byte
		if _, err := io.ReadFull(s.r, b[:]); err != nil {
			return s.readFailed(err)
		}
		s.endRead()
		return &quic.StreamError{ErrorCode: quic.StreamErrorCode(binary.LittleEndian.Uint64(b[:])), Remote: true}
	}
	s.link.close(wire.CodeProtocolViolation, "unknown chunk kind on a local stream")
	s.endRead()
	return &wire.ViolationError{Reason: "unknown chunk kind on a local stream"}
}

// readFailed classifies a read that ended without FIN or RESET: the
// connection's loss when the peer is gone; a bare EOF before any chunk
// from a live peer means the path took the stream one way and will not
// answer (PROTOCOL.md §12); otherwise the peer abandoned the stream.
func (s *unixStream) readFailed(err error) error {
	s.endRead()
	if s.readCanceled.Load() {
		return errReadCanceled
	}
	if s.link.peerGone() {
		return lossError(s.link.cause())
	}
	if errors.Is(err, net.ErrClosed) {
		return errReadCanceled
	}
	if !s.sawChunk && (err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF)) {
		return errLocalNoAnswer
	}
	return &quic.StreamError{ErrorCode: quic.StreamErrorCode(wire.CodeCanceled), Remote: true}
}

// errLocalNoAnswer: a local peer closed a stream without writing anything
// back, which is how a path that does not answer exchanges takes it.
var errLocalNoAnswer = errs.New(errs.KindUnsupported, "nothing answers exchanges at that path (a local peer takes the stream one way, or refuses it, without a reply)")

// awaitPeerDone is the reader of a one-way stream this side opened: the
// peer writes nothing back on it, so its close — after it read the FIN, or
// when it refuses — is all that arrives, and ends this end's reading.
//
// A close before this end's FIN can only be a refusal (or the peer's end):
// the sending side ends then, so a writer idle between chunks learns it
// without writing, as from STOP_SENDING over QUIC; its next write fails.
//
// The accepting side writes one thing back before its close: a RESET chunk
// when it refuses the stream over its bound. Its code is kept, so the
// writer's failure names it (LimitExceeded), as a STOP_SENDING code would.
func (s *unixStream) awaitPeerDone() {
	// Looked at before it is read: a write failing meanwhile finds the
	// code either still in the socket or already kept (resetCode).
	if code, ok := parseResetChunk(peekHead(s.conn, resetChunkLen, true)); ok {
		s.stopCode.Store(code + 1)
	}
	s.headTaken.Store(true)
	var b [64]byte
	for {
		if _, err := s.conn.Read(b[:]); err != nil {
			s.mu.Lock()
			if !s.wDone && !s.finning.Load() {
				s.peerLeft = true
				s.endSendLocked()
			}
			s.mu.Unlock()
			s.endRead()
			return
		}
	}
}

// errReadCanceled is a read after this end abandoned reading, as quic-go
// reports one after CancelRead.
var errReadCanceled = &quic.StreamError{ErrorCode: quic.StreamErrorCode(wire.CodeCanceled)}

// CancelRead abandons reading. Shutting the socket's read side wakes a Read
// that waits for bytes, even while this end still writes (an exchange's
// reply), and the peer's writes fail from then on: a unix peer has no
// STOP_SENDING, and this is the nearest it comes.
func (s *unixStream) CancelRead(quic.StreamErrorCode) {
	if !s.readCanceled.Swap(true) {
		_ = s.conn.CloseRead()
	}
	s.endRead()
}

// oneWay declares that this end writes nothing back.
func (s *unixStream) oneWay() { s.endWrite() }

// intent is unknown on a socket: the wire carries no stream kind, so the
// accepting side dispatches by path alone (PROTOCOL.md §12).
func (s *unixStream) intent() (bool, bool) { return false, false }

// StreamID names the end for its connection's receipts.
func (s *unixStream) StreamID() quic.StreamID { return s.id }

// Context ends when this end can write no more. On an accepted end (an
// exchange's reply half) it also ends when the requester closes its side:
// a unix requester abandons a reply that way, having no STOP_SENDING.
func (s *unixStream) Context() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sendDone == nil {
		s.sendDone = make(chan struct{})
		if s.wDone || s.peerLeft {
			s.endSendLocked()
		} else if s.onClose == nil {
			s.readEnd = make(chan struct{})
			if s.rDone {
				s.reClosed = true
				close(s.readEnd)
			}
			go s.watchRequester(s.readEnd)
		}
	}
	return endedContext{s.sendDone}
}

// watchRequester waits, once the request was read, for the requester's
// close: nothing else can arrive on the stream after its FIN. Once this end
// abandoned reading, its read side is shut and every read returns at once,
// so the close is awaited as the socket's hang-up instead.
func (s *unixStream) watchRequester(readEnd <-chan struct{}) {
	<-readEnd
	if s.readCanceled.Load() {
		if !awaitHangUp(s.conn) {
			return // closed here: the reply is over
		}
	} else {
		var b [1]byte
		_, _ = s.conn.Read(b[:])
	}
	s.requesterLeft()
}

// requesterLeft ends an accepted end's sending context: the requester
// closed its side, abandoning the reply.
func (s *unixStream) requesterLeft() {
	s.mu.Lock()
	s.peerLeft = true
	s.endSendLocked()
	s.mu.Unlock()
}

func (s *unixStream) endSendLocked() {
	if s.sendDone != nil && !s.sdClosed {
		s.sdClosed = true
		close(s.sendDone)
	}
}

func (s *unixStream) endWrite() {
	s.mu.Lock()
	s.wDone = true
	s.endSendLocked()
	s.closeIfDoneLocked()
}

func (s *unixStream) endRead() {
	s.mu.Lock()
	s.rDone = true
	s.closeReadEndLocked()
	s.closeIfDoneLocked()
}

// closeIfDoneLocked closes the socket once both directions are over, and
// unlocks s.mu.
func (s *unixStream) closeIfDoneLocked() {
	if !s.wDone || !s.rDone || s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	s.link.forget(s) // before the close the peer sees: it may open another at once
	_ = s.conn.Close()
	if s.onClose != nil {
		s.onClose()
	}
}

// cut closes the socket at once as if both directions were over, giving
// the slot back.
func (s *unixStream) cut() {
	s.mu.Lock()
	s.rDone = true
	s.closeReadEndLocked()
	s.mu.Unlock()
	s.endWrite()
}

// closeReadEndLocked tells a requester watch that reading is over.
func (s *unixStream) closeReadEndLocked() {
	if s.readEnd != nil && !s.reClosed {
		s.reClosed = true
		close(s.readEnd)
	}
}

// abort closes the socket at once (the connection ended).
func (s *unixStream) abort() {
	s.mu.Lock()
	s.wDone, s.rDone = true, true
	s.endSendLocked()
	s.closeReadEndLocked()
	s.mu.Unlock()
	_ = s.conn.Close()
}
