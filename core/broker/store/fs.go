package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// FS is every file-system operation the store makes, so that a test can
// hand it a disk that fails or loses power (see package faultfs). The
// default, [OSFS], is the operating system's.
type FS interface {
	// OpenFile is os.OpenFile.
	OpenFile(name string, flag int, perm fs.FileMode) (File, error)
	Rename(oldpath, newpath string) error
	Remove(name string) error
	// RemoveAll is os.RemoveAll: used only to empty payload/tmp.
	RemoveAll(path string) error
	Mkdir(name string, perm fs.FileMode) error
	MkdirAll(path string, perm fs.FileMode) error
	ReadDir(name string) ([]fs.DirEntry, error)
	// SyncDir fsyncs a directory, making the entries created, renamed or
	// removed in it durable.
	SyncDir(name string) error
	// Lock takes the exclusive lock of a data directory on the file name,
	// creating it; closing the result releases it.
	Lock(name string) (io.Closer, error)
}

// File is an open file of an FS: the subset of *os.File the store uses.
type File interface {
	io.Reader
	io.Writer
	io.ReaderAt
	io.Closer
	Sync() error
	Truncate(size int64) error
	Stat() (fs.FileInfo, error)
}

// OSFS is the operating system's file system, the store's default.
type OSFS struct{}

// OpenFile is os.OpenFile.
func (OSFS) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err // a nil *os.File must not become a non-nil File
	}
	return f, nil
}

// Rename is os.Rename.
func (OSFS) Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// Remove is os.Remove.
func (OSFS) Remove(name string) error { return os.Remove(name) }

// RemoveAll is os.RemoveAll.
func (OSFS) RemoveAll(path string) error { return os.RemoveAll(path) }

// Mkdir is os.Mkdir.
func (OSFS) Mkdir(name string, perm fs.FileMode) error { return os.Mkdir(name, perm) }

// MkdirAll is os.MkdirAll.
func (OSFS) MkdirAll(path string, perm fs.FileMode) error { return os.MkdirAll(path, perm) }

// ReadDir is os.ReadDir.
func (OSFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

// Lock takes an exclusive flock(2) on name (created if missing), which the
// kernel drops when the process dies; returns ErrLocked when another
// holds it.
func (OSFS) Lock(name string) (io.Closer, error) { return lockFile(name) }

// SyncDir opens the directory and fsyncs it.
func (OSFS) SyncDir(name string) error {
	d, err := os.Open(name)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir fsyncs a directory so that a file created, renamed or removed in
// it survives power loss, not just the file's data.
func (s *Store) syncDir(path string) error { return syncDirOf(s.fs, path) }

func syncDirOf(fsys FS, path string) error {
	if err := fsys.SyncDir(path); err != nil {
		return ioError("fsync of directory", path, err)
	}
	return nil
}

// openRead opens name read-only.
func openRead(fsys FS, name string) (File, error) { return fsys.OpenFile(name, os.O_RDONLY, 0) }

// createTemp makes a new file in dir named prefix plus a random suffix, as
// os.CreateTemp does, and returns it with its path.
func createTemp(fsys FS, dir, prefix string) (File, string, error) {
	for range 100 {
		path := filepath.Join(dir, fmt.Sprintf("%s%016x", prefix, rand.Uint64()))
		f, err := fsys.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, path, err
	}
	return nil, "", fmt.Errorf("no free temp name in %s", dir)
}

// truncateFile cuts name to size and makes the cut durable: a torn tail
// that came back after a power cut would be cut again, but a record
// appended after it must never end up behind the old damage.
func truncateFile(fsys FS, name string, size int64) error {
	f, err := fsys.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = f.Truncate(size)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func statFile(fsys FS, name string) (fs.FileInfo, error) {
	f, err := openRead(fsys, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Stat()
}
