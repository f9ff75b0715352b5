package faultfs

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// file is an open file of a view. Its offset is its own; its content is
// the inode's, shared with every other handle on it.
type file struct {
	v      *FS
	n      *inode
	path   string
	flag   int
	off    int64
	closed bool
}

// check is enter plus the handle's own state. The caller holds d.mu.
func (f *file) check(op Op, mutating bool) error {
	if f.closed {
		return fs.ErrClosed
	}
	return f.v.d.enter(f.v.gen, op, f.path, mutating)
}

func (f *file) Read(p []byte) (int, error) {
	n, err := f.readAt(p, f.off, "read")
	f.v.d.mu.Lock()
	f.off += int64(n)
	f.v.d.mu.Unlock()
	return n, err
}

func (f *file) ReadAt(p []byte, off int64) (int, error) { return f.readAt(p, off, "readat") }

func (f *file) readAt(p []byte, off int64, op string) (int, error) {
	d := f.v.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := f.check(OpRead, false); err != nil {
		return 0, pathError(op, f.path, err)
	}
	if f.flag&os.O_WRONLY != 0 {
		return 0, pathError(op, f.path, fs.ErrPermission)
	}
	if off >= int64(len(f.n.data)) {
		return 0, io.EOF
	}
	n := copy(p, f.n.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *file) Write(p []byte) (int, error) {
	d := f.v.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := f.check(OpWrite, true); err != nil {
		return 0, pathError("write", f.path, err)
	}
	if f.flag&(os.O_WRONLY|os.O_RDWR) == 0 {
		return 0, pathError("write", f.path, fs.ErrPermission)
	}
	if f.flag&os.O_APPEND != 0 {
		f.off = int64(len(f.n.data))
	}
	end := f.off + int64(len(p))
	if end > int64(len(f.n.data)) {
		// A fresh slice, never an append that could share memory with
		// the durable copy.
		grown := make([]byte, end)
		copy(grown, f.n.data)
		f.n.data = grown
	}
	copy(f.n.data[f.off:], p)
	f.off = end
	f.n.mtime = time.Now()
	return len(p), nil
}

// Sync makes the file's current content durable (not its name: that is
// its directory's SyncDir).
func (f *file) Sync() error {
	d := f.v.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := f.check(OpSync, true); err != nil {
		return pathError("sync", f.path, err)
	}
	f.n.durable = append([]byte(nil), f.n.data...)
	return nil
}

func (f *file) Truncate(size int64) error {
	d := f.v.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := f.check(OpTruncate, true); err != nil {
		return pathError("truncate", f.path, err)
	}
	if size < int64(len(f.n.data)) {
		f.n.data = append([]byte(nil), f.n.data[:size]...)
	} else {
		grown := make([]byte, size)
		copy(grown, f.n.data)
		f.n.data = grown
	}
	return nil
}

func (f *file) Stat() (fs.FileInfo, error) {
	d := f.v.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := f.check(OpRead, false); err != nil {
		return nil, pathError("stat", f.path, err)
	}
	return infoOf(filepath.Base(f.path), f.n), nil
}

// Close never fails for power: a dead handle has nothing left to release.
func (f *file) Close() error {
	d := f.v.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if f.closed {
		return fs.ErrClosed
	}
	f.closed = true
	return nil
}
