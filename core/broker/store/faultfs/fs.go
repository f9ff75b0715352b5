package faultfs

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/weida-go/weida/core/broker/store"
)

// FS is one view of a Disk: a store.FS whose every operation fails with
// ErrPowerLost once the disk lost power after the view was made.
type FS struct {
	d   *Disk
	gen int
}

var _ store.FS = (*FS)(nil)

func pathError(op, path string, err error) error { return &fs.PathError{Op: op, Path: path, Err: err} }

// OpenFile opens or creates a file, as os.OpenFile does for the flags the
// store uses (O_RDONLY, O_WRONLY, O_RDWR, O_CREATE, O_EXCL, O_TRUNC,
// O_APPEND).
func (v *FS) OpenFile(name string, flag int, perm fs.FileMode) (store.File, error) {
	d := v.d
	d.mu.Lock()
	defer d.mu.Unlock()
	create := flag&(os.O_CREATE|os.O_TRUNC) != 0
	if err := d.enter(v.gen, OpOpen, name, create); err != nil {
		return nil, pathError("open", name, err)
	}
	p, base, err := d.parent(name)
	if err != nil {
		return nil, pathError("open", name, err)
	}
	n := p.entries[base]
	switch {
	case n == nil && flag&os.O_CREATE == 0:
		return nil, pathError("open", name, fs.ErrNotExist)
	case n != nil && flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL:
		return nil, pathError("open", name, fs.ErrExist)
	case n == nil:
		n = &inode{mtime: time.Now()}
		p.entries[base] = n
	case n.dir && flag&(os.O_WRONLY|os.O_RDWR) != 0:
		return nil, pathError("open", name, syscall.EISDIR)
	}
	if flag&os.O_TRUNC != 0 {
		n.data = n.data[:0:0]
	}
	return &file{v: v, n: n, path: name, flag: flag}, nil
}

// Rename moves an entry, replacing what newpath named.
func (v *FS) Rename(oldpath, newpath string) error {
	d := v.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter(v.gen, OpRename, oldpath, true); err != nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
	}
	op, oldBase, err := d.parent(oldpath)
	if err == nil && op.entries[oldBase] == nil {
		err = fs.ErrNotExist
	}
	np, newBase, nerr := d.parent(newpath)
	if err == nil {
		err = nerr
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
	}
	n := op.entries[oldBase]
	delete(op.entries, oldBase)
	np.entries[newBase] = n
	return nil
}

// Remove unlinks a file or an empty directory.
func (v *FS) Remove(name string) error {
	d := v.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter(v.gen, OpRemove, name, true); err != nil {
		return pathError("remove", name, err)
	}
	p, base, err := d.parent(name)
	if err != nil {
		return pathError("remove", name, err)
	}
	n := p.entries[base]
	switch {
	case n == nil:
		return pathError("remove", name, fs.ErrNotExist)
	case n.dir && len(n.entries) > 0:
		return pathError("remove", name, syscall.ENOTEMPTY)
	}
	delete(p.entries, base)
	return nil
}

// RemoveAll unlinks path and everything under it; a missing path is no error.
func (v *FS) RemoveAll(path string) error {
	d := v.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter(v.gen, OpRemove, path, true); err != nil {
		return pathError("removeall", path, err)
	}
	if p, base, err := d.parent(path); err == nil {
		delete(p.entries, base)
	}
	return nil
}

// Mkdir makes one directory.
func (v *FS) Mkdir(name string, perm fs.FileMode) error {
	d := v.d
	d.mu.Lock()
	defer d.mu.Unlock()
	return v.mkdirLocked(name)
}

func (v *FS) mkdirLocked(name string) error {
	d := v.d
	if err := d.enter(v.gen, OpOpen, name, true); err != nil {
		return pathError("mkdir", name, err)
	}
	p, base, err := d.parent(name)
	if err != nil {
		return pathError("mkdir", name, err)
	}
	if p.entries[base] != nil {
		return pathError("mkdir", name, fs.ErrExist)
	}
	p.entries[base] = newDir()
	return nil
}

// MkdirAll makes a directory and any missing parents.
func (v *FS) MkdirAll(path string, perm fs.FileMode) error {
	d := v.d
	d.mu.Lock()
	defer d.mu.Unlock()
	at := "/"
	for _, part := range splitPath(path) {
		at = filepath.Join(at, part)
		n, err := d.lookup(at)
		if err == nil && n.dir {
			continue
		}
		if err == nil {
			return pathError("mkdir", at, syscall.ENOTDIR)
		}
		if err := v.mkdirLocked(at); err != nil {
			return err
		}
	}
	return nil
}

// ReadDir lists a directory sorted by name.
func (v *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	d := v.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter(v.gen, OpRead, name, false); err != nil {
		return nil, pathError("readdir", name, err)
	}
	n, err := d.lookup(name)
	if err == nil && !n.dir {
		err = syscall.ENOTDIR
	}
	if err != nil {
		return nil, pathError("readdir", name, err)
	}
	out := make([]fs.DirEntry, 0, len(n.entries))
	for base, c := range n.entries {
		out = append(out, fs.FileInfoToDirEntry(infoOf(base, c)))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

// SyncDir makes a directory's current entries durable.
func (v *FS) SyncDir(name string) error {
	d := v.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter(v.gen, OpSyncDir, name, true); err != nil {
		return pathError("fsync", name, err)
	}
	n, err := d.lookup(name)
	if err == nil && !n.dir {
		err = syscall.ENOTDIR
	}
	if err != nil {
		return pathError("fsync", name, err)
	}
	n.durableEntries = clone(n.entries)
	return nil
}

// Lock takes name as a lock held until the returned closer closes or the
// power is cut. Like the store's flock it needs no durable file.
func (v *FS) Lock(name string) (io.Closer, error) {
	d := v.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter(v.gen, OpOpen, name, false); err != nil {
		return nil, pathError("lock", name, err)
	}
	if d.locks[name] {
		return nil, store.ErrLocked
	}
	d.locks[name] = true
	return &lock{v: v, name: name}, nil
}

type lock struct {
	v    *FS
	name string
}

func (l *lock) Close() error {
	d := l.v.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if l.v.gen == d.gen {
		delete(d.locks, l.name)
	}
	return nil
}

// info is the fs.FileInfo of an inode, taken under the disk's lock.
type info struct {
	name  string
	size  int64
	dir   bool
	mtime time.Time
}

func infoOf(name string, n *inode) info {
	return info{name: name, size: int64(len(n.data)), dir: n.dir, mtime: n.mtime}
}

func (i info) Name() string       { return i.name }
func (i info) Size() int64        { return i.size }
func (i info) ModTime() time.Time { return i.mtime }
func (i info) IsDir() bool        { return i.dir }
func (i info) Sys() any           { return nil }
func (i info) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o700
	}
	return 0o600
}
