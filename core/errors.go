package weida

import (
	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/identity"
)

// Error is every failure weida returns: a Kind (what the caller may
// conclude), the library's sentence, and the wrapped cause.
type Error = errs.Error

// ErrorKind classifies an Error; its numbers are the C ABI's error codes.
type ErrorKind = errs.Kind

// LossCause explains why a connection ended.
type LossCause = errs.LossCause

// UntrustedError is wrapped by an Untrusted error and carries the key that
// answered, so an operator can verify it and pin it.
type UntrustedError = identity.UntrustedError

// The error kinds (SURFACE.md §2.6).
const (
	KindRuntime              = errs.KindRuntime
	KindInvalidAddress       = errs.KindInvalidAddress
	KindInvalidEndpointPath  = errs.KindInvalidEndpointPath
	KindInvalidFingerprint   = errs.KindInvalidFingerprint
	KindAlreadyRegistered    = errs.KindAlreadyRegistered
	KindAddressInUse         = errs.KindAddressInUse
	KindNotConnected         = errs.KindNotConnected
	KindConnectionLost       = errs.KindConnectionLost
	KindNegotiation          = errs.KindNegotiation
	KindProtocol             = errs.KindProtocol
	KindRejected             = errs.KindRejected
	KindUnknownEndpoint      = errs.KindUnknownEndpoint
	KindUnsupported          = errs.KindUnsupported
	KindNoParkedConnection   = errs.KindNoParkedConnection
	KindNoReply              = errs.KindNoReply
	KindCanceled             = errs.KindCanceled
	KindExpired              = errs.KindExpired
	KindIndeterminate        = errs.KindIndeterminate
	KindLimitExceeded        = errs.KindLimitExceeded
	KindDatagramsUnavailable = errs.KindDatagramsUnavailable
	KindTooLarge             = errs.KindTooLarge
	KindTLS                  = errs.KindTLS
	KindUntrusted            = errs.KindUntrusted
	KindUntrustedPrincipal   = errs.KindUntrustedPrincipal
	KindIO                   = errs.KindIO
	KindTransport            = errs.KindTransport
)

// Sentinels for errors.Is, one per kind.
var (
	ErrRuntime              = errs.ErrRuntime
	ErrInvalidAddress       = errs.ErrInvalidAddress
	ErrInvalidEndpointPath  = errs.ErrInvalidEndpointPath
	ErrInvalidFingerprint   = errs.ErrInvalidFingerprint
	ErrAlreadyRegistered    = errs.ErrAlreadyRegistered
	ErrAddressInUse         = errs.ErrAddressInUse
	ErrNotConnected         = errs.ErrNotConnected
	ErrConnectionLost       = errs.ErrConnectionLost
	ErrNegotiation          = errs.ErrNegotiation
	ErrProtocol             = errs.ErrProtocol
	ErrRejected             = errs.ErrRejected
	ErrUnknownEndpoint      = errs.ErrUnknownEndpoint
	ErrUnsupported          = errs.ErrUnsupported
	ErrNoParkedConnection   = errs.ErrNoParkedConnection
	ErrNoReply              = errs.ErrNoReply
	ErrCanceled             = errs.ErrCanceled
	ErrExpired              = errs.ErrExpired
	ErrIndeterminate        = errs.ErrIndeterminate
	ErrLimitExceeded        = errs.ErrLimitExceeded
	ErrDatagramsUnavailable = errs.ErrDatagramsUnavailable
	ErrTooLarge             = errs.ErrTooLarge
	ErrTLS                  = errs.ErrTLS
	ErrUntrusted            = errs.ErrUntrusted
	ErrUntrustedPrincipal   = errs.ErrUntrustedPrincipal
	ErrIO                   = errs.ErrIO
	ErrTransport            = errs.ErrTransport
)

// KindOf returns the kind of err, or 0 when err is not a weida error.
func KindOf(err error) ErrorKind { return errs.KindOf(err) }

// IsDefiniteFailure reports whether err says the operation certainly did not
// take effect; false for Indeterminate, NoReply and Expired.
func IsDefiniteFailure(err error) bool { return errs.IsDefiniteFailure(err) }

// The loss causes (SEMANTICS.md §6.3).
const (
	CauseIdleTimeout    = errs.CauseIdleTimeout
	CausePeerClosed     = errs.CausePeerClosed
	CauseLocallyClosed  = errs.CauseLocallyClosed
	CauseReset          = errs.CauseReset
	CauseTransportError = errs.CauseTransportError
)
