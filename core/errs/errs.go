// Package errs holds weida's one error type and its kinds. It is a leaf
// package so that every subsystem (identity, transport, patterns, broker)
// reports failures in the same vocabulary; package weida re-exports it.
//
// A Kind describes what the caller may conclude (an outcome), not why it
// happened. Kind numbers are stable: the C ABI returns them as error codes
// (SURFACE.md §3.3) and every binding maps them by table.
package errs

import (
	"errors"
	"fmt"
)

// Kind is the class of a weida failure. The numbering is part of the C ABI.
type Kind int

// The error kinds of SURFACE.md §2.6, numbered as the C ABI codes 1..26.
const (
	KindRuntime              Kind = 1
	KindInvalidAddress       Kind = 2
	KindInvalidEndpointPath  Kind = 3
	KindInvalidFingerprint   Kind = 4
	KindAlreadyRegistered    Kind = 5
	KindAddressInUse         Kind = 6
	KindNotConnected         Kind = 7
	KindConnectionLost       Kind = 8
	KindNegotiation          Kind = 9
	KindProtocol             Kind = 10
	KindRejected             Kind = 11
	KindUnknownEndpoint      Kind = 12
	KindUnsupported          Kind = 13
	KindNoParkedConnection   Kind = 14
	KindNoReply              Kind = 15
	KindCanceled             Kind = 16
	KindExpired              Kind = 17
	KindIndeterminate        Kind = 18
	KindLimitExceeded        Kind = 19
	KindDatagramsUnavailable Kind = 20
	KindTooLarge             Kind = 21
	KindTLS                  Kind = 22
	KindUntrusted            Kind = 23
	KindUntrustedPrincipal   Kind = 24
	KindIO                   Kind = 25
	KindTransport            Kind = 26
)

// kindNames are the variant names bindings expose (Python's errno).
var kindNames = map[Kind]string{
	KindRuntime:              "Runtime",
	KindInvalidAddress:       "InvalidAddress",
	KindInvalidEndpointPath:  "InvalidEndpointPath",
	KindInvalidFingerprint:   "InvalidFingerprint",
	KindAlreadyRegistered:    "AlreadyRegistered",
	KindAddressInUse:         "AddressInUse",
	KindNotConnected:         "NotConnected",
	KindConnectionLost:       "ConnectionLost",
	KindNegotiation:          "Negotiation",
	KindProtocol:             "Protocol",
	KindRejected:             "Rejected",
	KindUnknownEndpoint:      "UnknownEndpoint",
	KindUnsupported:          "Unsupported",
	KindNoParkedConnection:   "NoParkedConnection",
	KindNoReply:              "NoReply",
	KindCanceled:             "Canceled",
	KindExpired:              "Expired",
	KindIndeterminate:        "Indeterminate",
	KindLimitExceeded:        "LimitExceeded",
	KindDatagramsUnavailable: "DatagramsUnavailable",
	KindTooLarge:             "TooLarge",
	KindTLS:                  "Tls",
	KindUntrusted:            "Untrusted",
	KindUntrustedPrincipal:   "UntrustedPrincipal",
	KindIO:                   "Io",
	KindTransport:            "Transport",
}

// Kinds lists every kind in code order; tests compare it with each binding's table.
func Kinds() []Kind {
	out := make([]Kind, 0, len(kindNames))
	for k := KindRuntime; k <= KindTransport; k++ {
		out = append(out, k)
	}
	return out
}

// String returns the variant name, e.g. "Rejected".
func (k Kind) String() string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// LossCause explains why a connection ended. It never changes whether an
// outcome is definite (SEMANTICS.md §6.3).
type LossCause int

// The loss causes of SEMANTICS.md §6.3.
const (
	CauseNone LossCause = iota
	CauseIdleTimeout
	CausePeerClosed
	CauseLocallyClosed
	CauseReset
	CauseTransportError
)

var causeNames = [...]string{"", "IdleTimeout", "PeerClosed", "LocallyClosed", "Reset", "TransportError"}

func (c LossCause) String() string {
	if int(c) >= 0 && int(c) < len(causeNames) {
		return causeNames[c]
	}
	return fmt.Sprintf("LossCause(%d)", int(c))
}

// Error is every failure weida returns. Msg is the library's own sentence
// (the binding's "cause"); Err, when set, is the wrapped lower-level error.
type Error struct {
	Kind  Kind
	Msg   string
	Cause LossCause // set for ConnectionLost, Indeterminate and Expired when known
	Err   error
}

func (e *Error) Error() string {
	if e.Msg != "" {
		return e.Msg
	}
	if e.Err != nil {
		return e.Kind.String() + ": " + e.Err.Error()
	}
	return e.Kind.String()
}

// Unwrap returns the wrapped cause.
func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrRejected) match any *Error of the same kind.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Msg == "" && t.Err == nil && t.Kind == e.Kind
}

// New returns an *Error of kind k with a formatted sentence.
func New(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Msg: fmt.Sprintf(format, args...)}
}

// Wrap returns an *Error of kind k whose sentence is msg followed by err's text.
func Wrap(k Kind, err error, msg string) *Error {
	text := msg
	if err != nil {
		if text != "" {
			text += ": "
		}
		text += err.Error()
	}
	return &Error{Kind: k, Msg: text, Err: err}
}

// KindOf returns the kind of err, or 0 when err is not a weida error.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}

// IsDefiniteFailure reports whether err says the operation certainly did not
// take effect at the peer (SEMANTICS.md §6.3). It is false for
// Indeterminate, NoReply and Expired, and for nil.
func IsDefiniteFailure(err error) bool {
	switch KindOf(err) {
	case KindConnectionLost, KindRejected, KindUnknownEndpoint, KindUnsupported,
		KindCanceled, KindNotConnected, KindLimitExceeded, KindUntrusted:
		return true
	}
	return false
}

// Sentinels for errors.Is, one per kind.
var (
	ErrRuntime              = &Error{Kind: KindRuntime}
	ErrInvalidAddress       = &Error{Kind: KindInvalidAddress}
	ErrInvalidEndpointPath  = &Error{Kind: KindInvalidEndpointPath}
	ErrInvalidFingerprint   = &Error{Kind: KindInvalidFingerprint}
	ErrAlreadyRegistered    = &Error{Kind: KindAlreadyRegistered}
	ErrAddressInUse         = &Error{Kind: KindAddressInUse}
	ErrNotConnected         = &Error{Kind: KindNotConnected}
	ErrConnectionLost       = &Error{Kind: KindConnectionLost}
	ErrNegotiation          = &Error{Kind: KindNegotiation}
	ErrProtocol             = &Error{Kind: KindProtocol}
	ErrRejected             = &Error{Kind: KindRejected}
	ErrUnknownEndpoint      = &Error{Kind: KindUnknownEndpoint}
	ErrUnsupported          = &Error{Kind: KindUnsupported}
	ErrNoParkedConnection   = &Error{Kind: KindNoParkedConnection}
	ErrNoReply              = &Error{Kind: KindNoReply}
	ErrCanceled             = &Error{Kind: KindCanceled}
	ErrExpired              = &Error{Kind: KindExpired}
	ErrIndeterminate        = &Error{Kind: KindIndeterminate}
	ErrLimitExceeded        = &Error{Kind: KindLimitExceeded}
	ErrDatagramsUnavailable = &Error{Kind: KindDatagramsUnavailable}
	ErrTooLarge             = &Error{Kind: KindTooLarge}
	ErrTLS                  = &Error{Kind: KindTLS}
	ErrUntrusted            = &Error{Kind: KindUntrusted}
	ErrUntrustedPrincipal   = &Error{Kind: KindUntrustedPrincipal}
	ErrIO                   = &Error{Kind: KindIO}
	ErrTransport            = &Error{Kind: KindTransport}
)

// NotLeader is the detail of a refusal by a cluster node that does not lead
// the replicated queue addressed (ERROR NOT_LEADER, or code 10 on a stop or
// a close): errors.As finds it inside the Rejected (or, for a close,
// ConnectionLost) error. Leader is the leader's client URL with the queue
// path, "" when the node named none; Term is the Raft term it was named in,
// valid when HasTerm. Err is the transport error it came with, if any.
type NotLeader struct {
	Leader  string
	Term    uint64
	HasTerm bool
	Err     error
}

func (n *NotLeader) Error() string {
	switch {
	case n.Leader != "" && n.HasTerm:
		return fmt.Sprintf("not the leader; the leader is %s (term %d)", n.Leader, n.Term)
	case n.Leader != "":
		return "not the leader; the leader is " + n.Leader
	case n.HasTerm:
		return fmt.Sprintf("not the leader, and no leader is known (term %d)", n.Term)
	}
	return "not the leader of this queue"
}

// Unwrap returns the transport error the refusal came with.
func (n *NotLeader) Unwrap() error { return n.Err }
