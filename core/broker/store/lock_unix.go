//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly

package store

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"

	"github.com/weida-go/weida/core/errs"
)

// lockDir takes an exclusive flock on <dir>/LOCK: two stores on one directory
// would each believe they own the refcounts and delete each other's payloads.
// The kernel drops the lock when the process dies, so a crash never leaves a
// stale lock behind.
func lockDir(dir string) (*os.File, error) {
	path := filepath.Join(dir, "LOCK")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, ioError("opening lock file", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errs.New(errs.KindRuntime, "store: %s is in use by another store (lock %s is held)", dir, path)
		}
		return nil, ioError("locking", path, err)
	}
	return f, nil
}
