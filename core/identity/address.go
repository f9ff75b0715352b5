package identity

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/weida-go/weida/core/errs"
)

// Scheme selects the transport an address dials or binds.
type Scheme string

// The supported schemes. Named pipes (weida+pipe://) are not supported.
const (
	SchemeQUIC   Scheme = "weida"        // QUIC with TLS 1.3 (PROTOCOL.md §2.3)
	SchemeUnix   Scheme = "weida+unix"   // AF_UNIX stream socket (PROTOCOL.md §12)
	SchemeInproc Scheme = "weida+inproc" // in-process channels (PROTOCOL.md §12)
)

// maxPathBytes is the longest endpoint path (PROTOCOL.md §2.3).
const maxPathBytes = 512

// Address is a parsed weida URL. Which fields are set depends on Scheme:
// QUIC uses Fingerprint, HasFingerprint, Host and Port; unix uses
// SocketPath; inproc uses Bus. Path, the endpoint path, is always set.
// Address is comparable, so it can be part of a map key.
type Address struct {
	Scheme Scheme
	// Fingerprint is the only key allowed to answer, when HasFingerprint.
	Fingerprint    Fingerprint
	HasFingerprint bool
	// Host is the DNS name or IP literal as written, without IPv6 brackets.
	Host string
	Port uint16
	// SocketPath is the unix socket's file system path, percent-decoded.
	SocketPath string
	// Bus is the in-process bus name.
	Bus string
	// Path is the endpoint path, starting with "/".
	Path string
}

// String returns the canonical URL. IPv6 hosts are bracketed and a unix
// socket path is percent-encoded (every byte except A–Z a–z 0–9 - . _ ~),
// so weida+unix://%2Ftmp%2Fs.sock/echo prints unchanged.
func (a Address) String() string {
	var b strings.Builder
	b.WriteString(string(a.Scheme))
	b.WriteString("://")
	switch a.Scheme {
	case SchemeQUIC:
		if a.HasFingerprint {
			b.WriteString(a.Fingerprint.String())
			b.WriteByte('@')
		}
		b.WriteString(a.HostPort())
	case SchemeUnix:
		b.WriteString(escapeSocketPath(a.SocketPath))
	case SchemeInproc:
		b.WriteString(a.Bus)
	default:
		return fmt.Sprintf("<address with unknown scheme %q>", string(a.Scheme))
	}
	b.WriteString(a.Path)
	return b.String()
}

// HostPort returns host:port for dialling or binding, bracketing IPv6
// literals (net.JoinHostPort). It is meaningful for SchemeQUIC only.
func (a Address) HostPort() string {
	return net.JoinHostPort(a.Host, strconv.Itoa(int(a.Port)))
}

// WithPath returns a copy of a with the endpoint path p. It does not check
// p; call ValidatePath first when p comes from outside.
func (a Address) WithPath(p string) Address {
	a.Path = p
	return a
}

// ValidatePath checks an endpoint path (PROTOCOL.md §2.3): it starts with
// "/", is 1..512 bytes and contains no byte below 0x20. The path is
// otherwise opaque. Errors are of kind InvalidEndpointPath.
func ValidatePath(p string) error {
	if reason := pathProblem(p); reason != "" {
		return errs.New(errs.KindInvalidEndpointPath, "invalid endpoint path %s: %s", quote(p), reason)
	}
	return nil
}

// pathProblem describes what is wrong with p, or returns "".
func pathProblem(p string) string {
	switch {
	case p == "":
		return `must not be empty; it starts with "/"`
	case p[0] != '/':
		return `must start with "/"`
	case len(p) > maxPathBytes:
		return fmt.Sprintf("is %d bytes; at most %d are allowed", len(p), maxPathBytes)
	}
	if i := indexControlByte(p); i >= 0 {
		return fmt.Sprintf("contains the control byte 0x%02x at offset %d", p[i], i)
	}
	return ""
}

// indexControlByte returns the offset of the first byte below 0x20, or -1.
func indexControlByte(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 {
			return i
		}
	}
	return -1
}

// escapeSocketPath percent-encodes every byte outside RFC 3986's
// unreserved set, '/' included, so the socket path cannot be mistaken
// for the endpoint path that follows it.
func escapeSocketPath(p string) string {
	const upperHex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if isUnreserved(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(upperHex[c>>4])
		b.WriteByte(upperHex[c&0x0f])
	}
	return b.String()
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}
