package store

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/weida-go/weida/core/errs"
)

// ErrCorrupt is wrapped by every error that reports a corrupt store: a bad
// journal record that is not a torn tail, or a live message of a Flushed
// queue whose payload is missing or does not match its length and digest. Test with errors.Is(err, ErrCorrupt). Such
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

// The errors a read of a payload can end in. Each comes wrapped in a
// *PayloadError (use errors.As for the seq and digest) inside an Io error.
var (
	// ErrPayloadCorrupt: the body read for delivery did not match its
	// digest or its recorded length. The reader returns it in place of
	// io.EOF, so a caller that forwards the bytes can reset instead of
	// finishing. Permanent: reading again gives the same bytes.
	ErrPayloadCorrupt = errors.New("payload does not match its digest")
	// ErrPayloadMissing: the payload file of a live message is gone.
	// Permanent.
	ErrPayloadMissing = errors.New("payload file is missing")
)

// ErrNotDurable is wrapped by the error of an Admit whose ADMIT record was
// written but whose fsync failed: the message may or may not survive a
// crash (an Indeterminate outcome), unlike any other Admit error, which
// means nothing was recorded. The error's kind is Indeterminate.
var ErrNotDurable = errors.New("admitted, but its fsync failed: it may or may not survive a crash")

// notDurable is the Indeterminate error of an Admit whose record was
// written and whose fsync failed.
func notDurable(seq uint64, err error) error {
	return &errs.Error{
		Kind: errs.KindIndeterminate,
		Msg:  fmt.Sprintf("store: seq %d was recorded but may not survive a crash: %v", seq, err),
		Err:  fmt.Errorf("%w: %w", ErrNotDurable, err),
	}
}

// PayloadError is the detail of a payload that could not be read: which
// message, which file, and why (ErrPayloadCorrupt, ErrPayloadMissing, or
// the operating system's error).
type PayloadError struct {
	Seq    uint64
	Digest [32]byte
	Path   string
	Err    error
}

// Error names the message, its payload file and the failure.
func (e *PayloadError) Error() string {
	return fmt.Sprintf("payload of seq %d (sha256 %x, %s): %v", e.Seq, e.Digest, e.Path, e.Err)
}

// Unwrap returns the failure: ErrPayloadCorrupt, ErrPayloadMissing (each
// wrapped with detail) or the operating system's error.
func (e *PayloadError) Unwrap() error { return e.Err }

// payloadError is the Io error of a failed payload read.
func payloadError(m *Message, path string, err error) error {
	pe := &PayloadError{Seq: m.Seq, Digest: m.Digest, Path: path, Err: err}
	return &errs.Error{Kind: errs.KindIO, Msg: "store: " + pe.Error(), Err: pe}
}

// transientErrnos are the operating-system failures that may pass: out of
// file descriptors or memory, an interrupted or would-block call, and EIO,
// which a retry may not see again.
var transientErrnos = []error{syscall.EMFILE, syscall.ENFILE, syscall.EAGAIN, syscall.EINTR, syscall.ENOMEM, syscall.EIO}

// IsTransient reports whether err, from OpenBody or a read of its body,
// may succeed if retried later: EMFILE, ENFILE, EAGAIN, EINTR, ENOMEM or
// EIO. ErrPayloadCorrupt and ErrPayloadMissing are never transient.
func IsTransient(err error) bool {
	if err == nil || errors.Is(err, ErrPayloadCorrupt) || errors.Is(err, ErrPayloadMissing) {
		return false
	}
	for _, e := range transientErrnos {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
