package cluster

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/weida-go/weida/core/transport/raftlayer"
)

// A payload fetch is one stream of kind raftlayer.KindFetch: the member
// that lacks a body asks for it by digest and the member that has it
// answers with the body, streamed.
//
//	request:  version u8 (0) | digest [32]
//	answer:   status u8: 0 found | 1 unknown
//	          found: length u64 little-endian | exactly length bytes | FIN
//
// The asker knows the length from the ADMIT and reads no more than it;
// an answer of another length, a body longer than it said or one that
// hashes to another digest breaks the protocol, and the asker closes that
// member's connection. A request that is not 33 well-formed bytes closes
// the asker's.
const (
	fetchVersion       = 0
	fetchRequestLen    = 1 + 32
	fetchFound         = 0
	fetchUnknown       = 1
	fetchAnswerHeadLen = 1 + 8
)

// Bounds on a fetch.
const (
	// fetchRequestTimeout bounds how long a member may take to send its
	// 33-byte request.
	fetchRequestTimeout = 5 * time.Second
	// fetchIdleTimeout ends a fetch during which nothing arrived for so
	// long: a body may take long to stream, but not stall.
	fetchIdleTimeout = 10 * time.Second
)

// errFetchMalformed marks a peer that broke the fetch protocol.
var errFetchMalformed = errors.New("payload fetch: malformed")

// errFetchUnknown is a member's answer that it does not hold the body.
var errFetchUnknown = errors.New("payload fetch: the member does not hold the body")

func encodeFetchRequest(d [32]byte) []byte {
	return append([]byte{fetchVersion}, d[:]...)
}

// decodeFetchRequest reads a request: exactly fetchRequestLen bytes.
func decodeFetchRequest(b []byte) ([32]byte, error) {
	var d [32]byte
	if len(b) != fetchRequestLen || b[0] != fetchVersion {
		return d, fmt.Errorf("%w request: %d bytes, version %v", errFetchMalformed, len(b), b[:min(len(b), 1)])
	}
	copy(d[:], b[1:])
	return d, nil
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
	case fetchUnknown:
		if n, _ := r.Read(head[:1]); n != 0 {
			return fmt.Errorf("%w answer: bytes after 'unknown'", errFetchMalformed)
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
	h := sha256.New()
	// One byte past the length is read to see a body that runs on.
	n, err := io.Copy(io.MultiWriter(w, h), io.LimitReader(r, int64(length)))
	if err != nil {
		return fmt.Errorf("payload fetch: reading the body: %w", err)
	}
	if uint64(n) < length {
		return fmt.Errorf("payload fetch: the body ended at %d of %d bytes: %w", n, length, io.ErrUnexpectedEOF)
	}
	if m, _ := io.ReadFull(r, head[:1]); m != 0 {
		return fmt.Errorf("%w answer: the body runs past its %d bytes", errFetchMalformed, length)
	}
	var sum [32]byte
	if h.Sum(sum[:0]); sum != d {
		return fmt.Errorf("%w answer: the body hashes to %x, not %x", errFetchMalformed, sum, d)
	}
	return nil
}

// serveFetch answers one member's fetch stream from the group's payload
// store. A malformed request closes the member's connection; a body that
// fails its own check here (a damaged local copy) resets the stream, so
// the asker never takes it whole.
func (g *Group) serveFetch(s *raftlayer.Stream) {
	defer s.Close()
	req := make([]byte, fetchRequestLen+1)
	s.SetReadDeadline(time.Now().Add(fetchRequestTimeout))
	n, err := io.ReadFull(s, req)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return // the stream failed (reset, stalled, connection gone): nothing to judge
	}
	// The request then its FIN, or more bytes than a request holds.
	d, err := decodeFetchRequest(req[:n])
	if err != nil {
		g.node.log.Warn("cluster: closing a member's connection: bad payload fetch", "queue", g.Path, "member", s.Peer().String(), "err", err)
		s.CloseConnection("bad payload fetch")
		return
	}
	s.SetReadDeadline(time.Time{})
	rc, err := g.bodies.open(d)
	if err != nil {
		s.Write([]byte{fetchUnknown})
		return
	}
	defer rc.Close()
	length := rc.length
	head := make([]byte, fetchAnswerHeadLen)
	head[0] = fetchFound
	binary.LittleEndian.PutUint64(head[1:], length)
	if _, err := s.Write(head); err != nil {
		return
	}
	s.SetWriteDeadline(time.Now().Add(fetchIdleTimeout))
	if _, err := io.Copy(idleDeadlineWriter{s}, rc); err != nil {
		if errors.Is(err, ErrPayloadCorrupt) {
			g.node.log.Error("cluster: a payload failed its digest while a member fetched it", "queue", g.Path, "digest", fmt.Sprintf("%x", d), "err", err)
		}
		s.Stream.CancelWrite(0)
	}
}

// idleDeadlineWriter pushes the stream's write deadline on at each write,
// so a slow reader may take its time but a stalled one ends the fetch.
type idleDeadlineWriter struct{ s *raftlayer.Stream }

func (w idleDeadlineWriter) Write(p []byte) (int, error) {
	w.s.SetWriteDeadline(time.Now().Add(fetchIdleTimeout))
	return w.s.Write(p)
}

// idleDeadlineReader is idleDeadlineWriter's reading half.
type idleDeadlineReader struct{ s *raftlayer.Stream }

func (r idleDeadlineReader) Read(p []byte) (int, error) {
	r.s.SetReadDeadline(time.Now().Add(fetchIdleTimeout))
	return r.s.Read(p)
}

// fetchOnce asks the member at addr for body d into the payload store,
// committed (and so pinned) when it returns nil.
func (g *Group) fetchOnce(addr string, d [32]byte, length uint64) error {
	s, err := g.port.DialFetch(addr, fetchRequestTimeout)
	if err != nil {
		return err
	}
	defer s.Close()
	// A node that stops ends its fetches at once, not at their timeouts.
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-g.node.stop:
			s.Close()
		case <-done:
		}
	}()
	if _, err := s.Write(encodeFetchRequest(d)); err != nil {
		return fmt.Errorf("payload fetch: asking %s: %w", addr, err)
	}
	s.Stream.Close() // our half is done: the FIN ends the request
	body, err := g.bodies.NewBody()
	if err != nil {
		return err
	}
	if err := readFetchAnswer(idleDeadlineReader{s}, d, length, body); err != nil {
		body.Abort()
		if errors.Is(err, errFetchMalformed) {
			g.node.log.Warn("cluster: closing a member's connection: bad payload answer", "queue", g.Path, "member", s.Peer().String(), "err", err)
			s.CloseConnection("bad payload answer")
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

// fetchBody gets body d into the payload store from the leader, else any
// other member, committed (and pinned) when it returns nil. When every
// member answered that it lacks the body, the error is a
// *MissingBodyError.
func (g *Group) fetchBody(d [32]byte, length uint64) error {
	self := g.node.self.Raft
	leader, _ := g.raft.LeaderWithID()
	order := []string{}
	if leader != "" && string(leader) != self {
		order = append(order, string(leader))
	}
	for _, m := range g.node.file.Members {
		if m.Raft != self && m.Raft != string(leader) {
			order = append(order, m.Raft)
		}
	}
	unknown := 0
	var last error
	for _, addr := range order {
		err := g.fetchOnce(addr, d, length)
		if err == nil {
			return nil
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
