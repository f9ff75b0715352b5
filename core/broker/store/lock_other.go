//go:build !(linux || darwin || freebsd || openbsd || netbsd || dragonfly)

package store

import (
	"os"
	"path/filepath"
)

// lockDir only creates <dir>/LOCK where flock is unavailable: the caller must
// ensure a single store per directory itself.
func lockDir(dir string) (*os.File, error) {
	path := filepath.Join(dir, "LOCK")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, ioError("opening lock file", path, err)
	}
	return f, nil
}
