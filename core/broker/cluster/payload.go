package cluster

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"

	"github.com/weida-go/weida/core/broker/store"
)

// Payloads is one replicated queue's payload store on one member: the
// bodies over MaxInlineBody, which never enter the log, each in a file
// named by its SHA-256 (payload/<hh>/<sha256-hex> in the group's folder).
// Bodies being received stream into payload/tmp, which is emptied at
// open. A flushed group's Commit returns only once the file and its
// directory entry are fsynced.
//
// Which bodies are live is the FSM's to say (it tells the store at each
// apply and restore). A body that is not live is deleted unless an ADMIT
// may still come to name it: a Commit pins its body until the ADMIT it
// was made for is stored in this member's log (or Release, or pinTTL
// passes: a proposal that never reached the log), and an ADMIT
// stored in the log holds its body until it is applied or cut from the
// log. So the settlement of an older message with the same bytes never
// deletes a body under a newer one, and deletion never comes before the
// SETTLE that freed the body is applied.
type Payloads struct {
	fs      store.FS
	root    string // <group>/payload
	tmp     string // <group>/payload/tmp
	flushed bool

	mu      sync.Mutex
	pins    map[[32]byte]*pin       // Commits whose ADMIT is not stored yet
	holds   map[uint64][32]byte     // log index of a stored, unapplied ADMIT → its body
	held    map[[32]byte]int        // holds per body
	live    map[[32]byte]bool       // a live message refers to it (the FSM's references)
	synced  map[[32]byte]bool       // file and directory entry known fsynced
	missing map[[32]byte]wantedBody // bodies the state needs and the store lacks
	wake    chan struct{}           // the repair's: a body went missing
	// missingChanged is closed and replaced whenever missing changes.
	missingChanged chan struct{}
	// receiving: pushes being received, by body.
	receiving map[[32]byte]pushReceiving
}

// payloadWriteBuffer batches a stream's small writes into fewer write(2)s.
const payloadWriteBuffer = 32 << 10

// OpenPayloads opens (creating) the payload store in dir on fsys (nil:
// the operating system's), discarding every body left in progress.
func OpenPayloads(fsys store.FS, dir string, flushed bool) (*Payloads, error) {
	if fsys == nil {
		fsys = store.OSFS{}
	}
	p := &Payloads{fs: fsys, root: dir, tmp: filepath.Join(dir, "tmp"), flushed: flushed,
		pins: map[[32]byte]*pin{}, holds: map[uint64][32]byte{}, held: map[[32]byte]int{}, live: map[[32]byte]bool{},
		synced: map[[32]byte]bool{}, missing: map[[32]byte]wantedBody{}, wake: make(chan struct{}, 1),
		missingChanged: make(chan struct{}), receiving: map[[32]byte]pushReceiving{}}
	if err := fsys.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("payload store %s: %w", dir, err)
	}
	if err := fsys.RemoveAll(p.tmp); err != nil {
		return nil, fmt.Errorf("payload store: emptying %s: %w", p.tmp, err)
	}
	if err := fsys.Mkdir(p.tmp, 0o700); err != nil {
		return nil, fmt.Errorf("payload store %s: %w", p.tmp, err)
	}
	// Every <hh> folder exists before any body, so a Commit fsyncs one
	// directory, never two.
	for i := range 256 {
		sub := filepath.Join(dir, fmt.Sprintf("%02x", i))
		if err := fsys.Mkdir(sub, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("payload store %s: %w", sub, err)
		}
	}
	if flushed {
		// MkdirAll may have made any folder up the chain.
		for d := dir; ; d = filepath.Dir(d) {
			if err := fsys.SyncDir(d); err != nil {
				return nil, fmt.Errorf("payload store: fsync of %s: %w", d, err)
			}
			if d == filepath.Dir(d) {
				break
			}
		}
	}
	return p, nil
}

func (p *Payloads) dirOf(d [32]byte) string {
	return filepath.Join(p.root, hex.EncodeToString(d[:1]))
}

// path is payload/<hh>/<sha256-hex>.
func (p *Payloads) path(d [32]byte) string {
	return filepath.Join(p.dirOf(d), hex.EncodeToString(d[:]))
}

// Has reports whether the body with digest is in the store.
func (p *Payloads) Has(digest [32]byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.existsLocked(digest)
}

func (p *Payloads) existsLocked(d [32]byte) bool {
	f, err := p.fs.OpenFile(p.path(d), os.O_RDONLY, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// NewBody starts a body: written to a temp file and hashed as it goes, so
// no body is held whole in memory. Commit or Abort it. A PayloadBody is
// not safe for concurrent use.
func (p *Payloads) NewBody() (*PayloadBody, error) {
	for range 100 {
		path := filepath.Join(p.tmp, fmt.Sprintf("%016x", rand.Uint64()))
		f, err := p.fs.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("payload store: new body: %w", err)
		}
		b := &PayloadBody{p: p, f: f, path: path, h: sha256.New()}
		b.w = bufio.NewWriterSize(f, payloadWriteBuffer)
		return b, nil
	}
	return nil, fmt.Errorf("payload store: no free temp name in %s", p.tmp)
}

// PayloadBody is a body being written to the payload store.
type PayloadBody struct {
	p    *Payloads
	f    store.File
	path string
	w    *bufio.Writer
	h    hash.Hash
	n    uint64
	err  error // sticky: the first failure, or errBodyDone
}

var errBodyDone = errors.New("payload store: the body was committed or aborted")

// Write appends to the body.
func (b *PayloadBody) Write(data []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.w.Write(data)
	b.h.Write(data[:n])
	b.n += uint64(n)
	if err != nil {
		b.err = fmt.Errorf("payload store: writing %s: %w", b.path, err)
		return n, b.err
	}
	return n, nil
}

// Commit makes the body a payload named by its digest and returns the
// digest and length; for a flushed group it is durable (file and
// directory entry fsynced) when Commit returns. A body already in the
// store is not written twice. The body is pinned (see Payloads) until an
// ADMIT naming it is stored in this member's log, Release, or pinTTL.
// After Commit, whatever it returned, the body is finished.
func (b *PayloadBody) Commit() (digest [32]byte, length uint64, err error) {
	if b.err != nil {
		b.Abort()
		return digest, 0, b.err
	}
	b.h.Sum(digest[:0])
	length = b.n
	err = b.w.Flush()
	if err == nil && b.p.flushed {
		err = b.f.Sync()
	}
	if cerr := b.f.Close(); err == nil {
		err = cerr
	}
	b.err = errBodyDone
	if err != nil {
		b.p.fs.Remove(b.path)
		return digest, 0, fmt.Errorf("payload store: finishing %s: %w", b.path, err)
	}
	if err := b.p.adopt(b.path, digest); err != nil {
		return digest, 0, err
	}
	return digest, length, nil
}

// Abort discards the body.
func (b *PayloadBody) Abort() {
	if b.err == errBodyDone {
		return
	}
	b.err = errBodyDone
	b.f.Close()
	b.p.fs.Remove(b.path)
}

// adopt moves the finished temp file tmp to the payload of d (or drops it
// when that payload exists), pins d, and makes it durable when the group
// is flushed.
func (p *Payloads) adopt(tmp string, d [32]byte) error {
	p.mu.Lock()
	exists := p.existsLocked(d)
	if exists {
		p.fs.Remove(tmp)
	} else if err := p.fs.Rename(tmp, p.path(d)); err != nil {
		p.mu.Unlock()
		p.fs.Remove(tmp)
		return fmt.Errorf("payload store: moving a body to %s: %w", p.path(d), err)
	}
	p.pinLocked(d)
	if !exists {
		delete(p.synced, d) // a new file: its durability starts over
	}
	p.mu.Unlock()
	// The pin keeps the file while it is synced. The temp file was
	// fsynced before the rename; a file found in place was written by an
	// earlier process, perhaps never fsynced (a crash between rename and
	// directory fsync): fsync it too.
	if err := p.makeDurable(d, !exists); err != nil {
		p.Release(d)
		return err
	}
	return nil
}

// makeDurable fsyncs body d's file (unless fileSynced) and directory entry
// when the group is flushed and that was not done yet; the caller keeps
// the body (a pin or a hold) meanwhile.
func (p *Payloads) makeDurable(d [32]byte, fileSynced bool) error {
	p.mu.Lock()
	done := !p.flushed || p.synced[d]
	p.mu.Unlock()
	if done {
		return nil
	}
	if err := p.syncPayload(d, !fileSynced); err != nil {
		return err
	}
	p.mu.Lock()
	p.synced[d] = true
	p.mu.Unlock()
	return nil
}

func (p *Payloads) syncPayload(d [32]byte, syncFile bool) error {
	if syncFile {
		f, err := p.fs.OpenFile(p.path(d), os.O_RDONLY, 0)
		if err == nil {
			err = f.Sync()
			f.Close()
		}
		if err != nil {
			return fmt.Errorf("payload store: fsync of %s: %w", p.path(d), err)
		}
	}
	if err := p.fs.SyncDir(p.dirOf(d)); err != nil {
		return fmt.Errorf("payload store: fsync of %s: %w", p.dirOf(d), err)
	}
	return nil
}

// Open reads the body with digest. The reader checks what it streams: at
// the end it returns io.EOF only when the bytes hash to digest and are as
// many as the file held when opened; otherwise an error naming the
// digest.
func (p *Payloads) Open(digest [32]byte) (io.ReadCloser, error) { return p.open(digest) }

func (p *Payloads) open(digest [32]byte) (*verifiedBody, error) {
	path := p.path(digest)
	f, err := p.fs.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("payload store: body %x: %w", digest, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("payload store: body %x: %w", digest, err)
	}
	return &verifiedBody{f: f, digest: digest, length: uint64(st.Size()), h: sha256.New()}, nil
}

// verifiedBody is a payload file read back, checked as it goes.
type verifiedBody struct {
	f      store.File
	digest [32]byte
	length uint64
	h      hash.Hash
	n      uint64
	err    error // sticky once the read ended
}

// ErrPayloadCorrupt is wrapped by the error a payload read ends in when
// the bytes do not match their digest.
var ErrPayloadCorrupt = errors.New("payload does not match its digest")

func (v *verifiedBody) Read(buf []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	// One byte past the length shows a file that grew, without handing
	// any of it out.
	if room := v.length - v.n + 1; uint64(len(buf)) > room {
		buf = buf[:room]
	}
	n, err := v.f.Read(buf)
	if v.n+uint64(n) > v.length {
		v.err = v.corrupt(fmt.Sprintf("longer than its %d bytes", v.length))
		return 0, v.err
	}
	v.h.Write(buf[:n])
	v.n += uint64(n)
	switch {
	case err == io.EOF && v.n != v.length:
		v.err = v.corrupt(fmt.Sprintf("ends at %d of its %d bytes", v.n, v.length))
	case err == io.EOF:
		var sum [32]byte
		if v.h.Sum(sum[:0]); sum != v.digest {
			v.err = v.corrupt(fmt.Sprintf("its bytes hash to %x", sum))
		} else {
			v.err = io.EOF
		}
	case err != nil:
		v.err = fmt.Errorf("payload store: reading body %x: %w", v.digest, err)
	}
	return n, v.err
}

func (v *verifiedBody) corrupt(why string) error {
	return fmt.Errorf("payload store: body %x: %w: %s", v.digest, ErrPayloadCorrupt, why)
}

func (v *verifiedBody) Close() error { return v.f.Close() }

// Payloads is the group's payload store on this member.
func (g *Group) Payloads() *Payloads { return g.bodies }
