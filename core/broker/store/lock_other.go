//go:build !(linux || darwin || freebsd || openbsd || netbsd || dragonfly)

package store

import (
	"io"
	"os"
)

// lockFile only creates path where flock is unavailable: the caller must
// ensure a single store per directory itself.
func lockFile(path string) (io.Closer, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	return f, nil
}
