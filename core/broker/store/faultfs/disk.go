// Package faultfs is a simulated disk for testing the store: an in-memory
// file system (a [store.FS]) that can fail chosen operations with chosen
// errors and can lose power.
//
// The disk keeps two states of everything: what the store has written and
// what is durable. A file's durable content is its content at its last
// Sync; a directory's durable entries are its entries at its last SyncDir.
// [Disk.PowerCut] throws away everything else — data written after a
// file's last Sync, and creates, renames and removes not followed by a
// SyncDir of their directory — so a file survives only if every directory
// on its path durably names it. A store missing one fsync therefore loses
// data here, as it would on a real machine after a power loss, and the
// page cache that lets a SIGKILL test pass with every fsync removed does
// not exist.
//
// With [Disk.Tear] set, a cut also keeps a random part of what was
// appended after a file's last Sync, or only its length with zeros for
// data, and keeps some unsynced directory changes, as real file systems
// can: the torn tails, zeroed payloads and early removals a store must
// survive.
package faultfs

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrPowerLost is returned by every operation of an FS, and of a file
// opened through it, once the disk it belongs to lost power (or the
// process using it was killed: Kill).
var ErrPowerLost = errors.New("faultfs: the power was cut")

// Op names a kind of operation a Fault can fail.
type Op int

// The operations a Fault can fail.
const (
	OpOpen     Op = iota + 1 // OpenFile
	OpRead                   // Read, ReadAt
	OpWrite                  // Write
	OpSync                   // File.Sync
	OpSyncDir                // FS.SyncDir
	OpRename                 // FS.Rename
	OpRemove                 // FS.Remove, FS.RemoveAll
	OpTruncate               // File.Truncate
)

// Fault fails matching operations with Err.
type Fault struct {
	Op   Op
	Path string // a substring the file's path must contain; "" matches any
	Err  error  // e.g. syscall.EIO, syscall.ENOSPC
	// After lets this many matching operations succeed first; Times fails
	// this many (0: every one from then on).
	After, Times int
	// Check, when set, is called for each matching operation, on the
	// goroutine making it and with the disk locked (it must not use the
	// disk), instead of failing with Err: the operation fails with what it
	// returns, or goes on when that is nil. Tests use it to see who makes
	// an operation.
	Check func(path string) error
}

// Disk is one simulated disk. Its methods and those of every FS and file
// on it are safe for concurrent use.
type Disk struct {
	mu     sync.Mutex
	root   *inode
	gen    int // bumped by PowerCut: views and handles of older ones are dead
	locks  map[string]bool
	faults []*fault
	rng    *rand.Rand
	tear   bool
	// cutIn counts down mutating operations to an automatic power cut; 0
	// means none is armed. killIn does the same for a process crash.
	cutIn, killIn int
	cuts, kills   int
}

type fault struct {
	Fault
	seen, failed int
}

type inode struct {
	dir bool
	// A file's content now and at its last Sync.
	data, durable []byte
	// A directory's entries now and at its last SyncDir.
	entries, durableEntries map[string]*inode
	mtime                   time.Time
}

func newDir() *inode {
	return &inode{dir: true, entries: map[string]*inode{}, durableEntries: map[string]*inode{}}
}

// New returns an empty disk whose root directory exists durably. seed
// drives the random choices of torn cuts.
func New(seed uint64) *Disk {
	return &Disk{root: newDir(), locks: map[string]bool{}, rng: rand.New(rand.NewPCG(seed, 1))}
}

// Tear makes later power cuts keep a random part of unsynced appends (see
// the package comment). By default a cut keeps exactly the durable state.
func (d *Disk) Tear(on bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.tear = on
}

// FS returns a view of the disk for one store. Once the power is cut the
// view and every file opened through it fail with ErrPowerLost; a store
// reopened after the cut takes a new view.
func (d *Disk) FS() *FS {
	d.mu.Lock()
	defer d.mu.Unlock()
	return &FS{d: d, gen: d.gen}
}

// Inject adds a fault; the returned function removes it.
func (d *Disk) Inject(f Fault) (remove func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	ft := &fault{Fault: f}
	d.faults = append(d.faults, ft)
	return func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		for i, x := range d.faults {
			if x == ft {
				d.faults = append(d.faults[:i], d.faults[i+1:]...)
				return
			}
		}
	}
}

// CutAfter arms an automatic power cut: the n-th mutating operation from
// now (create, write, sync, rename, remove, mkdir, truncate; n >= 1)
// does not happen, the power is cut instead, and it fails with
// ErrPowerLost. That puts the cut at any point of a store's work, between
// any two of its writes, without a timer.
func (d *Disk) CutAfter(n int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cutIn = max(n, 1)
}

// Cuts is the number of power cuts so far.
func (d *Disk) Cuts() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cuts
}

// Kill is a crash of the process using the disk (SIGKILL), not of the
// machine: every view and open file stops working and every lock is
// released, but nothing is lost, since the page cache survives. What was
// not synced is still unsynced, for a later PowerCut to take.
func (d *Disk) Kill() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.killLocked()
}

func (d *Disk) killLocked() {
	d.gen++
	d.kills++
	d.killIn = 0
	d.locks = map[string]bool{}
}

// KillAfter arms an automatic Kill as CutAfter arms a power cut: the n-th
// mutating operation from now does not happen, the process dies instead,
// and the operation fails with ErrPowerLost.
func (d *Disk) KillAfter(n int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.killIn = max(n, 1)
}

// Kills is the number of process crashes so far.
func (d *Disk) Kills() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.kills
}

// PowerCut loses power now: every file and directory goes back to its
// durable state (see Tear), every lock is released, and every view and
// open file stops working.
func (d *Disk) PowerCut() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cutLocked()
}

func (d *Disk) cutLocked() {
	d.gen++
	d.cuts++
	d.cutIn, d.killIn = 0, 0
	d.locks = map[string]bool{}
	seen := map[*inode]bool{}
	var revert func(n *inode)
	revert = func(n *inode) {
		if seen[n] {
			return // a file the cut left under two names (a rename half made durable)
		}
		seen[n] = true
		if !n.dir {
			n.data = d.survivingData(n)
			n.durable = append([]byte(nil), n.data...)
			return
		}
		volatile := n.entries
		n.entries = clone(n.durableEntries)
		if d.tear {
			d.keepSomeUnsynced(n, volatile)
		}
		n.durableEntries = clone(n.entries) // what a cut kept is on the disk now
		for _, c := range n.entries {
			revert(c)
		}
	}
	revert(d.root)
}

// keepSomeUnsynced makes some of a directory's unsynced changes (creates,
// removes, renames' halves) survive a torn cut after all, as a file system
// that commits its metadata on its own schedule may: a store must not rely
// on an unsynced change being lost any more than on it being kept.
func (d *Disk) keepSomeUnsynced(n *inode, volatile map[string]*inode) {
	var changed []string
	for name, c := range volatile {
		if n.durableEntries[name] != c {
			changed = append(changed, name)
		}
	}
	for name := range n.durableEntries {
		if volatile[name] == nil {
			changed = append(changed, name)
		}
	}
	sort.Strings(changed) // the seed decides, not map order
	for _, name := range changed {
		if d.rng.IntN(2) == 0 {
			continue
		}
		if c := volatile[name]; c != nil {
			n.entries[name] = c
		} else {
			delete(n.entries, name)
		}
	}
}

// survivingData is what a cut leaves of a file: its durable content, and
// when tearing, maybe part of what was appended after it.
func (d *Disk) survivingData(n *inode) []byte {
	kept := append([]byte(nil), n.durable...)
	extra := len(n.data) - len(n.durable)
	if !d.tear || extra <= 0 || string(n.data[:len(n.durable)]) != string(n.durable) || d.rng.IntN(2) == 0 {
		return kept
	}
	k := 1 + d.rng.IntN(extra)
	if d.rng.IntN(3) == 0 {
		return append(kept, make([]byte, k)...) // the size reached the disk, the data did not
	}
	return append(kept, n.data[len(n.durable):len(n.durable)+k]...)
}

func clone(m map[string]*inode) map[string]*inode {
	out := make(map[string]*inode, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// enter is called at the start of every operation of a view or file of
// generation gen on path: it reports a dead view, an armed cut reached
// (for a mutating op), or an injected fault. The caller holds d.mu.
func (d *Disk) enter(gen int, op Op, path string, mutating bool) error {
	if gen != d.gen {
		return ErrPowerLost
	}
	if mutating && d.cutIn > 0 {
		if d.cutIn--; d.cutIn == 0 {
			d.cutLocked()
			return ErrPowerLost
		}
	}
	if mutating && d.killIn > 0 {
		if d.killIn--; d.killIn == 0 {
			d.killLocked()
			return ErrPowerLost
		}
	}
	for _, f := range d.faults {
		if f.Op != op || !strings.Contains(path, f.Path) {
			continue
		}
		if f.seen++; f.seen <= f.After || (f.Times > 0 && f.failed >= f.Times) {
			continue
		}
		f.failed++
		if f.Check != nil {
			if err := f.Check(path); err != nil {
				return err
			}
			continue
		}
		return f.Err
	}
	return nil
}

// lookup finds the inode at a clean absolute path in the current state.
func (d *Disk) lookup(path string) (*inode, error) {
	n := d.root
	for _, part := range splitPath(path) {
		if !n.dir {
			return nil, syscall.ENOTDIR
		}
		if n = n.entries[part]; n == nil {
			return nil, fs.ErrNotExist
		}
	}
	return n, nil
}

// parent finds the directory that holds path and path's last element.
func (d *Disk) parent(path string) (*inode, string, error) {
	dir, name := filepath.Split(filepath.Clean(path))
	p, err := d.lookup(dir)
	if err != nil {
		return nil, "", err
	}
	if !p.dir {
		return nil, "", syscall.ENOTDIR
	}
	if name == "" {
		return nil, "", fs.ErrInvalid
	}
	return p, name, nil
}

func splitPath(path string) []string {
	path = strings.Trim(filepath.ToSlash(filepath.Clean(path)), "/")
	if path == "" || path == "." {
		return nil
	}
	return strings.Split(path, "/")
}

// Durable reports whether path would survive a power cut now, with its
// current content: a check for tests of the disk itself.
func (d *Disk) Durable(path string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := d.root
	for _, part := range splitPath(path) {
		if !n.dir || n.durableEntries[part] == nil || n.durableEntries[part] != n.entries[part] {
			return false
		}
		n = n.entries[part]
	}
	return n.dir || string(n.data) == string(n.durable)
}
