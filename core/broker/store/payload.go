package store

import (
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// payloads is the node's one payload store (BROKER.md §13.2): bodies named by
// their SHA-256, shared by every queue, deleted when no live message of any
// queue references them. Refcounts live only in memory and are rebuilt from
// the journals at Open.
type payloads struct {
	fs   FS
	root string // <dir>/payload
	tmp  string // <dir>/payload/tmp

	mu   sync.Mutex
	refs map[[32]byte]*payloadRef
}

// payloadRef counts the live messages naming one payload. A ref at zero
// stays in the map until removeUnreferenced: an Admit of the same body in
// between writes the file afresh and counts it again, and the removal, which
// rechecks the count under the lock, then leaves it alone.
type payloadRef struct {
	count int
	// adopts counts Admits of this body: a removal decided before one
	// (marks) is not carried out after it, whose SETTLE may not be durable.
	adopts uint64
	synced bool // the file's data and directory entry have been fsynced
	// gone: the file was moved out by a quarantine (it could not be read
	// as its digest). The next Admit of this body writes it afresh rather
	// than dedup against it, which also heals live messages sharing it.
	gone bool
}

func newPayloads(fsys FS, root string) *payloads {
	return &payloads{fs: fsys, root: root, tmp: filepath.Join(root, "tmp"), refs: make(map[[32]byte]*payloadRef)}
}

func (p *payloads) dirOf(d [32]byte) string {
	return filepath.Join(p.root, hex.EncodeToString(d[:1]))
}

// path is payload/<hh>/<sha256-hex>.
func (p *payloads) path(d [32]byte) string {
	return filepath.Join(p.dirOf(d), hex.EncodeToString(d[:]))
}

// retain counts one more reference to a payload known to exist (recovery).
func (p *payloads) retain(d [32]byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ref := p.refs[d]
	if ref == nil {
		// Not known synced: after a process crash its pages may still be
		// dirty, so the first Flushed dedup against it fsyncs it.
		ref = &payloadRef{}
		p.refs[d] = ref
	}
	ref.count++
}

// adopt turns a finished body into the payload for its digest and counts a
// reference: a new payload file when no live message has that body,
// otherwise the body is dropped (dedup). With flushed it returns only once
// the payload's data and directory entry are durable.
func (p *payloads) adopt(fin finished, flushed bool) error {
	d := fin.digest
	p.mu.Lock()
	ref := p.refs[d]
	deduped := ref != nil && ref.count > 0 && !ref.gone
	var created File // a small body's new file, kept open for its fsync
	if !deduped {
		var err error
		if fin.inMemory {
			created, err = p.createLocked(fin.small, d, ref != nil && !ref.gone, flushed)
		} else {
			err = p.renameLocked(fin.tmp, d)
		}
		if err != nil {
			p.mu.Unlock()
			if !fin.inMemory {
				p.fs.Remove(fin.tmp)
			}
			return err
		}
		if ref == nil {
			ref = &payloadRef{}
			p.refs[d] = ref
		}
		ref.synced, ref.gone = false, false // a new file: its durability starts over
	}
	ref.count++
	ref.adopts++
	needSync := flushed && !ref.synced
	p.mu.Unlock()
	if deduped && !fin.inMemory {
		p.fs.Remove(fin.tmp)
	}
	if !needSync {
		return nil
	}
	// The reference is counted, so nobody removes the file while we sync it.
	// Several Admits may sync the same file concurrently; that is only waste.
	// A renamed temp file was fsynced by Body.finish; anything else was not.
	if err := p.syncPayload(d, created, deduped || fin.inMemory); err != nil {
		p.release(d)
		return err
	}
	p.mu.Lock()
	ref.synced = true
	p.mu.Unlock()
	return nil
}

// renameLocked moves a finished temp file to the payload path. A file
// already there (unreferenced, awaiting removal or left by a crash) is
// replaced atomically. The caller holds p.mu.
func (p *payloads) renameLocked(tmp string, d [32]byte) error {
	final := p.path(d)
	if err := p.fs.Rename(tmp, final); err != nil {
		return ioError("moving received body to", final, err)
	}
	return nil
}

// createLocked writes a small body straight to its payload file, with
// O_EXCL so that the common case (no file yet) costs one open and no
// unlink. A file already there when known (a payload of this process at
// zero references, awaiting removal) holds exactly these bytes — it is
// content-addressed and was written whole — so it is reused as it is. Any
// other (a crash leftover not yet swept, which may be partial, or a
// quarantined payload other messages still name) is replaced: the body is
// written beside it and renamed over it, so a reader never finds the name
// missing. A crash mid-write leaves a file no ADMIT names, which recovery
// sweeps. With keepOpen the new file is returned open, for
// the caller to fsync and close; a reused one is returned nil. The caller
// holds p.mu.
func (p *payloads) createLocked(data []byte, d [32]byte, known, keepOpen bool) (File, error) {
	final := p.path(d)
	const flags = os.O_WRONLY | os.O_CREATE | os.O_EXCL
	f, err := p.fs.OpenFile(final, flags, 0o600)
	written := final
	if errors.Is(err, fs.ErrExist) {
		if known {
			return nil, nil
		}
		f, written, err = createTemp(p.fs, p.tmp, "small-")
	}
	if err != nil {
		return nil, ioError("creating payload", final, err)
	}
	_, err = f.Write(data)
	if err == nil && written != final {
		if err = p.fs.Rename(written, final); err == nil {
			written = final
		}
	}
	if err != nil || !keepOpen {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		f = nil
	}
	if err != nil {
		p.fs.Remove(written)
		return nil, ioError("writing payload", final, err)
	}
	return f, nil
}

// syncPayload makes a payload durable: the file's data when syncFile (through
// open when it is the file just created, else by opening it), and its
// directory entry. The payload/<hh> directories themselves were made durable
// at Open. It closes open.
func (p *payloads) syncPayload(d [32]byte, open File, syncFile bool) error {
	final := p.path(d)
	if syncFile {
		f := open
		if f == nil {
			var err error
			if f, err = openRead(p.fs, final); err != nil {
				return ioError("opening payload for fsync", final, err)
			}
		}
		err := f.Sync()
		f.Close()
		if err != nil {
			return ioError("fsync of payload", final, err)
		}
	} else if open != nil {
		open.Close()
	}
	return syncDirOf(p.fs, p.dirOf(d))
}

// release drops one reference and reports whether it was the last. The file
// stays until removeUnreferenced: its SETTLE record must reach disk first.
func (p *payloads) release(d [32]byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	ref := p.refs[d]
	if ref == nil || ref.count == 0 {
		return false
	}
	ref.count--
	return ref.count == 0
}

// refMark is a payload's reference as a removal found it before making
// the settlements durable.
type refMark struct {
	d      [32]byte
	ref    *payloadRef
	adopts uint64
}

// marks notes the references of ds now, before the settlements that freed
// them are made durable (Store.syncSettlements).
func (p *payloads) marks(ds [][32]byte) []refMark {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]refMark, 0, len(ds))
	for _, d := range ds {
		if ref := p.refs[d]; ref != nil {
			out = append(out, refMark{d: d, ref: ref, adopts: ref.adopts})
		}
	}
	return out
}

// removeUnreferenced deletes each marked payload still at zero references
// and admitted by nobody since it was marked. Mark before the settlements
// that freed them are durable, call this after: an Admit and a Settle of
// the same body in between, whose SETTLE that did not cover, leave it.
func (p *payloads) removeUnreferenced(ms []refMark) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var first error
	for _, m := range ms {
		if ref := p.refs[m.d]; ref != m.ref || ref.count > 0 || ref.adopts != m.adopts {
			continue
		}
		delete(p.refs, m.d)
		if err := p.fs.Remove(p.path(m.d)); err != nil && !errors.Is(err, fs.ErrNotExist) && first == nil {
			first = ioError("removing settled payload", p.path(m.d), err)
		}
	}
	return first
}

// quarantineDir is where quarantined payloads are kept for an operator:
// <dir>/quarantine, outside payload/ so neither dedup nor the sweep sees
// them.
func (p *payloads) quarantineDir() string { return filepath.Join(filepath.Dir(p.root), "quarantine") }

// setAside drops the quarantined message's reference to the payload of d
// and, when it was the last, moves the file out of the content-addressed
// store to quarantine/<sha256-hex>.<seq> for an operator, once settled
// (which makes every queue's settlements durable: a message settled with
// the same body could come back after a crash). Either way the payload is
// marked gone: a later Admit of the same body writes a sound file rather
// than dedup against this one, which would be certified and then
// quarantined in its turn. Other messages naming the body (dedup, in any
// queue) keep the file: each is judged by its own read, so a quarantine
// that was transient or wrong costs only its own message, and a restart
// does not find their payload missing. A payload already gone is nothing
// to move.
func (p *payloads) setAside(d [32]byte, seq uint64, settled func() error) error {
	p.mu.Lock()
	ref := p.refs[d]
	last := true
	if ref != nil {
		ref.count = max(ref.count-1, 0)
		ref.gone, ref.synced = true, false
		last = ref.count == 0
	}
	p.mu.Unlock()
	if !last {
		return nil
	}
	if err := settled(); err != nil {
		if errors.Is(err, errSettlementsUnsynced) {
			return nil // the file stays, marked gone; the next Open's sweep takes it
		}
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if now := p.refs[d]; now != ref || ref != nil && (ref.count > 0 || !ref.gone) {
		return nil // admitted again meanwhile (a fresh file), or already removed
	}
	dir := p.quarantineDir()
	if err := p.fs.MkdirAll(dir, 0o700); err != nil {
		return ioError("making the quarantine directory", dir, err)
	}
	// The directory's own entry must be durable for what it holds to be.
	if err := syncDirOf(p.fs, filepath.Dir(dir)); err != nil {
		return err
	}
	kept := filepath.Join(dir, hex.EncodeToString(d[:])+"."+strconv.FormatUint(seq, 10))
	if err := p.fs.Rename(p.path(d), kept); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return ioError("setting a quarantined payload aside to", kept, err)
	}
	if err := syncDirOf(p.fs, dir); err != nil {
		return err
	}
	return syncDirOf(p.fs, p.dirOf(d))
}
