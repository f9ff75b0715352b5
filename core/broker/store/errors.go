package store

import (
	"errors"
	"fmt"

	"github.com/weida-go/weida/core/errs"
)

// ErrCorrupt is wrapped by every error that reports a corrupt store: a bad
// journal record that is not a torn tail, or a live message whose payload is
// missing or has the wrong length. Test with errors.Is(err, ErrCorrupt). Such
// a queue must not be served (BROKER.md §13.3 recovery step 2).
var ErrCorrupt = errors.New("corrupt store")

// corruptf returns an Io error wrapping ErrCorrupt that names the file and
// the byte offset where the damage was found.
func corruptf(file string, off int64, format string, args ...any) error {
	return &errs.Error{
		Kind: errs.KindIO,
		Msg:  fmt.Sprintf("store: corrupt store: %s at offset %d: %s", file, off, fmt.Sprintf(format, args...)),
		Err:  ErrCorrupt,
	}
}

// ioError wraps an operating-system failure as an Io error; op says what the
// store was doing ("creating payload directory"), path names the file.
func ioError(op, path string, err error) error {
	return errs.Wrap(errs.KindIO, err, fmt.Sprintf("store: %s %s", op, path))
}

// ErrLocked is what FS.Lock returns (wrapped or not) when another store
// holds the data directory.
var ErrLocked = errors.New("data directory is locked by another store")

// errClosed is returned by every operation on a closed queue or store.
var errClosed = errs.New(errs.KindRuntime, "store: closed")
