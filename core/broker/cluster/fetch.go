package cluster

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hashicorp/raft"

	"github.com/weida-go/weida/core/transport/raftlayer"
)

// A payload stream is one stream of kind raftlayer.KindFetch. Its first
// byte says what it does: a get (a member that lacks a body asks for it
// by digest and a member that has it answers with the body, streamed), or
// a push (the leader offers a body before it proposes its ADMIT).
//
//	get:     op u8 (0) | digest [32] | index u64 little-endian | FIN
//	answer:  status u8: 0 found | 1 unknown | 2 settled
//	         found: length u64 little-endian | exactly length bytes | FIN
//	push:    op u8 (1) | digest [32] | length u64 little-endian | exactly length bytes | FIN
//	answer:  status u8: 0 stored (durable at the queue's durability) | 1 refused
//
// A get's index is the log index of the state that needs the body (0:
// not known). "settled" says the answering member lacks the body because
// it applied that index and more, and no live message of its state refers
// to the body: every message with it that the asker's state can hold was
// settled by a committed entry, which the asker will apply too. The asker
// then needs no copy: a member that was away while a body came and went
// replays its ADMIT, and the body is gone everywhere, rightly.
//
// A reader knows the length (from the ADMIT, or the push's header) and
// reads no more than it. A body of another length, one that runs past it
// or one that hashes to another digest breaks the protocol, as does a
// request that is not well formed, and the reader closes the sender's
// connection.
const (
	fetchOpGet         = 0
	fetchOpPush        = 1
	fetchRequestLen    = 1 + 32 + 8
	pushHeaderLen      = 1 + 32 + 8
	fetchFound         = 0
	fetchUnknown       = 1
	fetchSettled       = 2
	pushStored         = 0
	pushRefused        = 1
	fetchAnswerHeadLen = 1 + 8
)

// Bounds on a fetch.
const (
	// fetchRequestTimeout bounds how long a member may take to send a
	// request's header.
	fetchRequestTimeout = 5 * time.Second
	// fetchIdleTimeout ends a body's sending when the receiver took
	// nothing for so long: a body may take long to stream, but not stall.
	// (The receiving side gives up sooner: Group.transferStall.)
	fetchIdleTimeout = 10 * time.Second
)

// errFetchMalformed marks a peer that broke the fetch protocol.
var errFetchMalformed = errors.New("payload fetch: malformed")

// errFetchUnknown is a member's answer that it does not hold the body.
var errFetchUnknown = errors.New("payload fetch: the member does not hold the body")

// errBodySettled is a member's answer that no state from the asked index
// on needs the body: it was settled in a committed entry.
var errBodySettled = errors.New("payload fetch: the body's messages are settled")

// fetchRequest is a payload stream's request: a get, or a push's header.
type fetchRequest struct {
	push   bool
	digest [32]byte
	length uint64 // a push's
	index  uint64 // a get's: the log index of the state that needs the body
}

func (r fetchRequest) encode() []byte {
	if !r.push {
		return binary.LittleEndian.AppendUint64(append([]byte{fetchOpGet}, r.digest[:]...), r.index)
	}
	return binary.LittleEndian.AppendUint64(append([]byte{fetchOpPush}, r.digest[:]...), r.length)
}

// readFetchRequest reads a request from the start of a payload stream: a
// whole get up to its FIN, or a push's header (its body follows). A
// stream that fails meanwhile is that stream's error; anything else that
// is not a request is errFetchMalformed.
func readFetchRequest(r io.Reader) (fetchRequest, error) {
	var req fetchRequest
	var buf [pushHeaderLen]byte
	malformed := func(why string) (fetchRequest, error) {
		return req, fmt.Errorf("%w request: %s", errFetchMalformed, why)
	}
	short := func(err error) bool { return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) }
	if _, err := io.ReadFull(r, buf[:1]); err != nil {
		if short(err) {
			return malformed("empty")
		}
		return req, err
	}
	switch buf[0] {
	case fetchOpGet:
		if _, err := io.ReadFull(r, buf[1:fetchRequestLen]); err != nil {
			if short(err) {
				return malformed("a get cut short")
			}
			return req, err
		}
		req.index = binary.LittleEndian.Uint64(buf[1+32:])
		if n, err := r.Read(buf[:1]); n != 0 {
			return malformed("bytes after a get")
		} else if err != nil && !errors.Is(err, io.EOF) {
			return req, err
		}
		// A Read of 0 bytes and no error is allowed by io.Reader; the
		// FIN then comes with the answer's write, which is harmless.
	case fetchOpPush:
		if _, err := io.ReadFull(r, buf[1:pushHeaderLen]); err != nil {
			if short(err) {
				return malformed("a push header cut short")
			}
			return req, err
		}
		req.push = true
		req.length = binary.LittleEndian.Uint64(buf[1+32:])
		if req.length <= MaxInlineBody {
			return malformed(fmt.Sprintf("a push of %d bytes, which travel in the log", req.length))
		}
	default:
		return malformed(fmt.Sprintf("op %d", buf[0]))
	}
	copy(req.digest[:], buf[1:1+32])
	return req, nil
}

// readFetchAnswer reads an answer for the body d of length bytes from r
// into w, never more than length bytes. It returns nil only when w got
// exactly the body: length bytes hashing to d, then the end of r.
func readFetchAnswer(r io.Reader, d [32]byte, length uint64, w io.Writer) error {
	var head [fetchAnswerHeadLen]byte
	if _, err := io.ReadFull(r, head[:1]); err != nil {
		return fmt.Errorf("payload fetch: reading the answer: %w", err)
	}
	switch head[0] {
	case fetchUnknown, fetchSettled:
		if n, _ := r.Read(head[:1]); n != 0 {
			return fmt.Errorf("%w answer: bytes after status %d", errFetchMalformed, head[0])
		}
		if head[0] == fetchSettled {
			return errBodySettled
		}
		return errFetchUnknown
	case fetchFound:
	default:
		return fmt.Errorf("%w answer: status %d", errFetchMalformed, head[0])
	}
	if _, err := io.ReadFull(r, head[1:]); err != nil {
		return fmt.Errorf("payload fetch: reading the answer: %w", err)
	}
	if got := binary.LittleEndian.Uint64(head[1:]); got != length {
		return fmt.Errorf("%w answer: a body of %d bytes, the ADMIT says %d", errFetchMalformed, got, length)
	}
	return readStreamedBody(r, d, length, w)
}

// readStreamedBody copies the body d of length bytes from r to w, never
// more than length bytes, and returns nil only when w got exactly the
// body: length bytes hashing to d, then the end of r.
func readStreamedBody(r io.Reader, d [32]byte, length uint64, w io.Writer) error {
	var one [1]byte
	h := sha256.New()
	// One byte past the length is read to see a body that runs on.
	n, err := io.Copy(io.MultiWriter(w, h), io.LimitReader(r, int64(length)))
	if err != nil {
		return fmt.Errorf("payload fetch: reading the body: %w", err)
	}
	if uint64(n) < length {
		// The sender's FIN (a failing sender resets instead).
		return fmt.Errorf("%w: the body ended at %d of %d bytes (%w)", errFetchMalformed, n, length, io.ErrUnexpectedEOF)
	}
	if m, _ := io.ReadFull(r, one[:]); m != 0 {
		return fmt.Errorf("%w: the body runs past its %d bytes", errFetchMalformed, length)
	}
	var sum [32]byte
	if h.Sum(sum[:0]); sum != d {
		return fmt.Errorf("%w: the body hashes to %x, not %x", errFetchMalformed, sum, d)
	}
	return nil
}

// serveFetch answers one member's payload stream from the group's payload
// store. A malformed request closes the member's connection; a body that
// fails its own check here (a damaged local copy) resets the stream, so
// the asker never takes it whole.
func (g *Group) serveFetch(s *raftlayer.Stream) {
	defer s.Close()
	s.SetReadDeadline(time.Now().Add(fetchRequestTimeout))
	req, err := readFetchRequest(s)
	if errors.Is(err, errFetchMalformed) {
		g.badPeer(s, "bad payload request", err)
		return
	}
	if err != nil {
		return // the stream failed (reset, stalled, connection gone): nothing to judge
	}
	s.SetReadDeadline(time.Time{})
	if req.push {
		g.receivePush(s, req)
		return
	}
	d := req.digest
	g.served.gets.Add(1)
	rc, err := g.bodies.open(d)
	if err != nil {
		status := byte(fetchUnknown)
		if g.settledPastSoon(req.index, d) {
			status = fetchSettled
		}
		s.Write([]byte{status})
		return
	}
	defer rc.Close()
	head := make([]byte, fetchAnswerHeadLen)
	head[0] = fetchFound
	binary.LittleEndian.PutUint64(head[1:], rc.length)
	if _, err := s.Write(head); err != nil {
		return
	}
	if _, err := io.Copy(idleDeadlineWriter{s}, rc); err != nil {
		if errors.Is(err, ErrPayloadCorrupt) {
			g.node.log.Error("cluster: a payload failed its digest while a member fetched it", "queue", g.Path, "digest", fmt.Sprintf("%x", d), "err", err)
		}
		s.Stream.CancelWrite(0)
	}
}

// settledPastSoon is FSM.settledPast once this member has applied the
// asked index, waiting for that up to half the asker's stall bound (the
// members share Raft's timings). A member a little behind the asker, a
// follower a heartbeat behind its leader or a member just restarted,
// would otherwise answer "unknown" for a body settled and deleted
// everywhere, and an asker every member answers so takes its own store
// for corrupt (seen when a member restarted after SIGKILL caught up and
// led within 3 s: "no member holds it" at level ERROR).
func (g *Group) settledPastSoon(index uint64, d [32]byte) bool {
	bound := time.NewTimer(g.transferStall / 2)
	defer bound.Stop()
	for {
		changed, _ := g.FSM.Changed()
		if index == 0 || g.FSM.appliedIndex() >= index {
			return g.FSM.settledPast(index, d)
		}
		select {
		case <-changed:
		case <-bound.C:
			return false
		case <-g.node.stop:
			return false
		}
	}
}

// badPeer closes the connection of a member that broke the payload
// protocol, saying so in the log.
func (g *Group) badPeer(s *raftlayer.Stream, reason string, err error) {
	g.node.log.Warn("cluster: closing a member's connection: "+reason, "queue", g.Path, "member", s.Peer().String(), "err", err)
	s.CloseConnection(reason)
}

// idleDeadlineWriter pushes the stream's write deadline on at each write,
// so a slow reader may take its time but a stalled one ends the fetch.
type idleDeadlineWriter struct{ s *raftlayer.Stream }

func (w idleDeadlineWriter) Write(p []byte) (int, error) {
	w.s.SetWriteDeadline(time.Now().Add(fetchIdleTimeout))
	return w.s.Write(p)
}

// idleDeadlineReader is idleDeadlineWriter's reading half: a read that
// waits longer than idle for anything ends the transfer.
type idleDeadlineReader struct {
	s    *raftlayer.Stream
	idle time.Duration
}

func (r idleDeadlineReader) Read(p []byte) (int, error) {
	r.s.SetReadDeadline(time.Now().Add(r.idle))
	return r.s.Read(p)
}

// fetchOnce asks the member at addr for body d, needed by the state at
// log index, into the payload store, committed (and so pinned) when it
// returns nil.
func (g *Group) fetchOnce(addr string, d [32]byte, length, index uint64) error {
	s, err := g.port.DialFetch(addr, fetchRequestTimeout)
	if err != nil {
		return err
	}
	defer s.Close()
	defer g.closeOnStop(s)()
	if _, err := s.Write(fetchRequest{digest: d, index: index}.encode()); err != nil {
		return fmt.Errorf("payload fetch: asking %s: %w", addr, err)
	}
	s.Stream.Close() // our half is done: the FIN ends the request
	body, err := g.bodies.NewBody()
	if err != nil {
		return err
	}
	if err := readFetchAnswer(idleDeadlineReader{s, g.transferStall}, d, length, body); err != nil {
		body.Abort()
		if errors.Is(err, errFetchMalformed) {
			g.badPeer(s, "bad payload answer", err)
		}
		return err
	}
	got, _, err := body.Commit()
	if err == nil && got != d {
		// readFetchAnswer checked the digest of what it wrote: a
		// difference is this member's disk.
		g.bodies.Release(got)
		err = fmt.Errorf("payload fetch: body %x was stored as %x", d, got)
	}
	return err
}

// MissingBodyError says that no member holds a body the log needs: a
// corrupt store, never a message to skip.
type MissingBodyError struct {
	Path   string
	Digest [32]byte
	Length uint64
}

func (e *MissingBodyError) Error() string {
	return fmt.Sprintf("corrupt store: replicated queue %s needs body %x (%d bytes) and no member holds it", e.Path, e.Digest, e.Length)
}

// fetchBody gets body d, needed by the state at log index, into the
// payload store from the leader, else any other member (fetchOrder),
// committed (and pinned) when it returns nil. It is errBodySettled once a member answered
// that no state from index on needs the body; a *MissingBodyError when
// every member answered that it lacks it.
func (g *Group) fetchBody(d [32]byte, length, index uint64) error {
	self := g.node.self.Raft
	var leader raft.ServerAddress
	if r := g.started.Load(); r != nil {
		leader, _ = r.LeaderWithID()
	}
	order := fetchOrder(self, string(leader), g.node.file.Members, g.unanswered.has)
	unknown := 0
	var last error
	for _, addr := range order {
		err := g.fetchOnce(addr, d, length, index)
		g.unanswered.note(addr, err)
		if err == nil || errors.Is(err, errBodySettled) {
			return err
		}
		if errors.Is(err, errFetchUnknown) {
			unknown++
		}
		last = err
	}
	if unknown == len(order) {
		return &MissingBodyError{Path: g.Path, Digest: d, Length: length}
	}
	return fmt.Errorf("replicated queue %s: fetching body %x: %w", g.Path, d, last)
}
