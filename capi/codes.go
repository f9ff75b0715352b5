package main

import (
	"errors"

	"github.com/weida-go/weida/core/errs"
)

// The ABI's own codes (SURFACE.md §3.3); 1..26 are the library's kinds.
const (
	codeOK        = 0
	codeBadHandle = 100
	codeInval     = 101
	codeTimedOut  = 102
	codeEnd       = 103
	codeInternal  = 104
	codeTruncated = 105
	lastABIOnly   = codeTruncated
	codeRuntime   = int(errs.KindRuntime)
)

// codeInfo names one code as weida.h does and says what it means.
type codeInfo struct {
	name string // the C enumerator, e.g. WEIDA_EREJECTED
	text string // one line for weida_strerror
}

// kindCodes maps every library error kind to its C code name; a test holds
// it equal to errs.Kinds() and to weida.h.
var kindCodes = map[errs.Kind]codeInfo{
	errs.KindRuntime:              {"WEIDA_ERUNTIME", "the runtime failed or was used wrongly"},
	errs.KindInvalidAddress:       {"WEIDA_EINVALID_ADDRESS", "the address or URL is not valid"},
	errs.KindInvalidEndpointPath:  {"WEIDA_EINVALID_PATH", "the endpoint path is not valid"},
	errs.KindInvalidFingerprint:   {"WEIDA_EINVALID_FINGERPRINT", "the fingerprint is not sha256:<64 hex>"},
	errs.KindAlreadyRegistered:    {"WEIDA_EALREADY_REGISTERED", "the path already has an endpoint"},
	errs.KindAddressInUse:         {"WEIDA_EADDRINUSE", "the local address is in use"},
	errs.KindNotConnected:         {"WEIDA_ENOTCONN", "the endpoint has no connection"},
	errs.KindConnectionLost:       {"WEIDA_ECONNLOST", "the connection was lost (definite failure)"},
	errs.KindNegotiation:          {"WEIDA_ENEGOTIATION", "the peers could not agree on terms"},
	errs.KindProtocol:             {"WEIDA_EPROTOCOL", "a protocol rule was broken"},
	errs.KindRejected:             {"WEIDA_EREJECTED", "the peer refused it"},
	errs.KindUnknownEndpoint:      {"WEIDA_EUNKNOWN_ENDPOINT", "no endpoint is registered at that path"},
	errs.KindUnsupported:          {"WEIDA_EUNSUPPORTED", "the endpoint or library does not support it"},
	errs.KindNoParkedConnection:   {"WEIDA_ENOPARKED", "no parked reverse connection"},
	errs.KindNoReply:              {"WEIDA_ENOREPLY", "no reply: unanswered, or answered already"},
	errs.KindCanceled:             {"WEIDA_ECANCELED", "canceled"},
	errs.KindExpired:              {"WEIDA_EEXPIRED", "the send timeout expired"},
	errs.KindIndeterminate:        {"WEIDA_EINDETERMINATE", "outcome unknown: the peer may or may not have it"},
	errs.KindLimitExceeded:        {"WEIDA_ELIMIT", "a limit or ceiling was exceeded"},
	errs.KindDatagramsUnavailable: {"WEIDA_ENODATAGRAMS", "datagrams are not available on this connection"},
	errs.KindTooLarge:             {"WEIDA_ETOOLARGE", "too large for a datagram"},
	errs.KindTLS:                  {"WEIDA_ETLS", "TLS failed"},
	errs.KindUntrusted:            {"WEIDA_EUNTRUSTED", "the peer's key is not trusted"},
	errs.KindUntrustedPrincipal:   {"WEIDA_EUNTRUSTED_PRINCIPAL", "the peer's principal is not trusted"},
	errs.KindIO:                   {"WEIDA_EIO", "an I/O error"},
	errs.KindTransport:            {"WEIDA_ETRANSPORT", "the transport failed"},
}

// abiCodes are the codes only the ABI has.
var abiCodes = map[int]codeInfo{
	codeBadHandle: {"WEIDA_EBADHANDLE", "the handle is zero, closed, forged or of the wrong role"},
	codeInval:     {"WEIDA_EINVAL", "an argument is not valid"},
	codeTimedOut:  {"WEIDA_ETIMEDOUT", "the deadline passed"},
	codeEnd:       {"WEIDA_END", "the end (not a failure)"},
	codeInternal:  {"WEIDA_EINTERNAL", "the library caught an internal fault"},
	codeTruncated: {"WEIDA_ETRUNCATED", "the buffer was too small"},
}

// describe returns code's C name and meaning.
func describe(code int) (codeInfo, bool) {
	if code == codeOK {
		return codeInfo{"WEIDA_OK", "success"}, true
	}
	if info, ok := abiCodes[code]; ok {
		return info, true
	}
	info, ok := kindCodes[errs.Kind(code)]
	return info, ok
}

// abiError is a failure the ABI itself reports (a bad handle or argument).
type abiError struct {
	code int
	msg  string
}

func (e *abiError) Error() string { return e.msg }

func abiErr(code int, msg string) error { return &abiError{code: code, msg: msg} }

// invalid is a WEIDA_EINVAL failure naming what is wrong.
func invalid(msg string) error { return abiErr(codeInval, msg) }

// codeOf maps an error to its ABI code: the ABI's own, the library's kind,
// or WEIDA_ERUNTIME for an error that carries no kind (none should).
func codeOf(err error) int {
	if err == nil {
		return codeOK
	}
	var ae *abiError
	if errors.As(err, &ae) {
		return ae.code
	}
	if k := errs.KindOf(err); k != 0 {
		return int(k)
	}
	return codeRuntime
}
