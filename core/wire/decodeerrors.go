package wire

import (
	"errors"
	"fmt"
)

// ErrNeedMore reports that the input ends before the item it starts: read
// more bytes and try again. It is not an error while the stream is open; at
// FIN the same situation is a violation (see ReadHeader, CheckCursorRecordEnd).
var ErrNeedMore = errors.New("need more bytes")

// ErrProtocolViolation matches every *ViolationError under errors.Is, so a
// caller can map any decode failure to close code PROTOCOL_VIOLATION (2)
// without inspecting the reason.
var ErrProtocolViolation = errors.New("protocol violation")

// ViolationError is a connection-fatal breach of the wire rules (PROTOCOL.md
// §14.1). Reason names what is wrong and where, e.g.
// "DATA key 10 (report): levels not strictly ascending".
type ViolationError struct {
	Reason string
}

// Error returns "protocol violation: <reason>".
func (e *ViolationError) Error() string { return "protocol violation: " + e.Reason }

// Is makes errors.Is(err, ErrProtocolViolation) true for every violation.
func (e *ViolationError) Is(target error) bool { return target == ErrProtocolViolation }

// violation builds a *ViolationError. It is only called on the failure
// path, so the formatting cost never touches a successful decode.
func violation(format string, args ...any) error {
	return &ViolationError{Reason: fmt.Sprintf(format, args...)}
}

// reasonOf returns the reason of a violation, or the text of any other error.
func reasonOf(err error) string {
	var v *ViolationError
	if errors.As(err, &v) {
		return v.Reason
	}
	return err.Error()
}
