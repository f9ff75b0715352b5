package store

import (
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// payloads is the node's one payload store (BROKER.md §13.2): bodies named by
// their SHA-256, shared by every queue, deleted when no live message of any
// queue references them. Refcounts live only in memory and are rebuilt from
// the journals at Open.
type payloads struct {
	root string // <dir>/payload
	tmp  string // <dir>/payload/tmp

	mu        sync.Mutex
	refs      map[[32]byte]*payloadRef
	dirSynced [256]bool // payload/<hh> entry known durable in payload/
}

// payloadRef counts the live messages naming one payload. A ref at zero
// stays in the map until the file is removed, so an Admit of the same body
// in between re-uses the file instead of racing its removal.
type payloadRef struct {
	count  int
	synced bool // the file's data and directory entry have been fsynced
}

func newPayloads(root string) *payloads {
	return &payloads{root: root, tmp: filepath.Join(root, "tmp"), refs: make(map[[32]byte]*payloadRef)}
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

// adopt turns a finished temp file into the payload for digest d and counts
// a reference: rename when no live message has that body, otherwise drop the
// temp (dedup). With flushed it returns only once the payload's data and
// directory entry are durable.
func (p *payloads) adopt(tmp string, d [32]byte, flushed bool) error {
	final := p.path(d)
	p.mu.Lock()
	ref := p.refs[d]
	deduped := ref != nil && ref.count > 0
	if !deduped {
		if err := p.renameLocked(tmp, d); err != nil {
			p.mu.Unlock()
			os.Remove(tmp)
			return err
		}
		if ref == nil {
			ref = &payloadRef{}
			p.refs[d] = ref
		}
		// A rename replaces whatever file was there; its durability is new.
		ref.synced = false
	}
	ref.count++
	needSync := flushed && !ref.synced
	syncRoot := needSync && !p.dirSynced[d[0]]
	p.mu.Unlock()
	if deduped {
		os.Remove(tmp)
	}
	if !needSync {
		return nil
	}
	// The reference is counted, so nobody removes the file while we sync it.
	// Several Admits may sync the same file concurrently; that is only waste.
	err := p.syncPayload(final, d, deduped, syncRoot)
	if err != nil {
		p.release(d)
		return err
	}
	p.mu.Lock()
	ref.synced = true
	if syncRoot {
		p.dirSynced[d[0]] = true
	}
	p.mu.Unlock()
	return nil
}

// renameLocked moves tmp to the payload path, creating payload/<hh> on first
// use. The caller holds p.mu.
func (p *payloads) renameLocked(tmp string, d [32]byte) error {
	final := p.path(d)
	err := os.Rename(tmp, final)
	if errors.Is(err, fs.ErrNotExist) {
		if merr := os.Mkdir(p.dirOf(d), 0o700); merr != nil && !errors.Is(merr, fs.ErrExist) {
			return ioError("creating payload directory", p.dirOf(d), merr)
		}
		p.dirSynced[d[0]] = false
		err = os.Rename(tmp, final)
	}
	if err != nil {
		return ioError("moving received body to", final, err)
	}
	return nil
}

// syncPayload makes a payload durable: the file's data (already synced by
// Body when it was renamed, so only for a dedup hit), its directory entry,
// and the directory's entry in payload/ when that is new.
func (p *payloads) syncPayload(final string, d [32]byte, syncFile, syncRoot bool) error {
	if syncFile {
		f, err := os.Open(final)
		if err != nil {
			return ioError("opening payload for fsync", final, err)
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return ioError("fsync of payload", final, err)
		}
	}
	if err := syncDir(p.dirOf(d)); err != nil {
		return err
	}
	if syncRoot {
		return syncDir(p.root)
	}
	return nil
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

// removeUnreferenced deletes each payload still at zero references. Call it
// only after the journal holding the SETTLE records that freed them is synced,
// or a crash could leave a live ADMIT naming a deleted payload.
func (p *payloads) removeUnreferenced(ds [][32]byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var first error
	for _, d := range ds {
		ref := p.refs[d]
		if ref == nil || ref.count > 0 {
			continue
		}
		delete(p.refs, d)
		if err := os.Remove(p.path(d)); err != nil && !errors.Is(err, fs.ErrNotExist) && first == nil {
			first = ioError("removing settled payload", p.path(d), err)
		}
	}
	return first
}
