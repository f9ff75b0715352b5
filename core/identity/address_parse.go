package identity

import (
	"fmt"
	"net/netip"
	"net/url"
	"runtime"
	"strconv"
	"strings"

	"github.com/weida-go/weida/core/errs"
)

// addressUse selects between the two grammars: a dialling address names a
// peer; a bind address (SURFACE.md §1.5) names a local socket.
type addressUse int

const (
	forDialling addressUse = iota
	forBinding
)

// maxBusBytes is the longest in-process bus name (PROTOCOL.md §12).
const maxBusBytes = 256

// schemeList is how error sentences name the schemes this package accepts.
const schemeList = "weida://, weida+unix:// or weida+inproc://"

// ParseAddress parses a dialling address (PROTOCOL.md §2.3, §12):
//
//	weida://[sha256:<64 hex>@]host:port/path
//	weida+unix://<percent-encoded socket path>/path
//	weida+inproc://<bus>/path
//
// The authority ends at the first "/". In a weida:// authority everything
// before the last "@" is the fingerprint; IPv6 hosts are bracketed; the
// port is mandatory and 1..65535. Local schemes refuse a fingerprint.
// Errors are of kind InvalidAddress, or InvalidFingerprint /
// InvalidEndpointPath when that part is the fault; all quote the address.
func ParseAddress(s string) (Address, error) {
	return parseAddress(s, forDialling)
}

// ParseBindAddress parses the address a server binds (SURFACE.md §1.5). It
// differs from ParseAddress for weida:// only: no fingerprint (the
// fingerprint is what serve prints), the host must be a literal IP, and
// port 0 asks the kernel to choose.
func ParseBindAddress(s string) (Address, error) {
	return parseAddress(s, forBinding)
}

// addressParser parses one address; the original text is kept for errors.
type addressParser struct {
	text string
	use  addressUse
}

func parseAddress(s string, use addressUse) (Address, error) {
	p := addressParser{text: s, use: use}
	schemeText, rest, found := strings.Cut(s, "://")
	if !found {
		return Address{}, p.invalid("missing the scheme; expected " + schemeList)
	}
	slash := strings.IndexByte(rest, '/')
	if slash < 0 {
		return Address{}, p.invalid(`missing the endpoint path after the authority (e.g. "/echo")`)
	}
	authority := rest[:slash]
	a := Address{Scheme: Scheme(schemeText), Path: rest[slash:]}
	var err error
	switch a.Scheme {
	case SchemeQUIC:
		err = p.parseNetworkAuthority(&a, authority)
	case SchemeUnix:
		err = p.parseSocketAuthority(&a, authority)
	case SchemeInproc:
		err = p.parseBusAuthority(&a, authority)
	case "weida+pipe":
		err = p.invalid("named pipes are not supported")
	default:
		err = p.invalid(fmt.Sprintf("unknown scheme %s; expected %s", quote(schemeText), schemeList))
	}
	if err != nil {
		return Address{}, err
	}
	if reason := pathProblem(a.Path); reason != "" {
		return Address{}, errs.New(errs.KindInvalidEndpointPath,
			"invalid address %s: the endpoint path %s %s", quote(s), quote(a.Path), reason)
	}
	return a, nil
}

// parseNetworkAuthority handles [fingerprint@]host:port.
func (p addressParser) parseNetworkAuthority(a *Address, authority string) error {
	hostPort := authority
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		if p.use == forBinding {
			return p.invalid("a bind address carries no fingerprint: the fingerprint is what serve prints")
		}
		fp, err := ParseFingerprint(authority[:at])
		if err != nil {
			return errs.New(errs.KindInvalidFingerprint, "invalid address %s: %s", quote(p.text), err.Error())
		}
		a.Fingerprint, a.HasFingerprint = fp, true
		hostPort = authority[at+1:]
	}
	host, portText, err := p.splitHostPort(hostPort)
	if err != nil {
		return err
	}
	if err := p.checkHost(host); err != nil {
		return err
	}
	port, err := p.parsePort(portText)
	if err != nil {
		return err
	}
	a.Host, a.Port = host, port
	return nil
}

// splitHostPort separates host and port. A bracketed host must be an IPv6
// literal; an unbracketed one may not contain ':' (so "::1:80" is refused
// instead of guessed at).
func (p addressParser) splitHostPort(hostPort string) (host, port string, err error) {
	if hostPort == "" {
		return "", "", p.invalid("missing the host and port")
	}
	if strings.HasPrefix(hostPort, "[") {
		end := strings.IndexByte(hostPort, ']')
		if end < 0 {
			return "", "", p.invalid(`the "[" before the host is never closed by "]"`)
		}
		host, after := hostPort[1:end], hostPort[end+1:]
		if ip, parseErr := netip.ParseAddr(host); parseErr != nil || !ip.Is6() {
			return "", "", p.invalid(fmt.Sprintf("%s in brackets is not an IPv6 literal", quote(host)))
		}
		port, found := strings.CutPrefix(after, ":")
		if !found {
			return "", "", p.invalid(`missing ":port" after the bracketed host (there is no default port)`)
		}
		return host, port, nil
	}
	colon := strings.LastIndexByte(hostPort, ':')
	if colon < 0 {
		return "", "", p.invalid(`missing ":port" after the host (there is no default port)`)
	}
	host, port = hostPort[:colon], hostPort[colon+1:]
	if strings.Contains(host, ":") {
		return "", "", p.invalid("an IPv6 host must be written in brackets, e.g. weida://[::1]:7443/path")
	}
	return host, port, nil
}

// checkHost applies the host rules: non-empty and no control bytes ('/'
// and '@' cannot occur, the authority was cut at both); a bind address
// must name a literal IP because nothing is resolved when binding.
func (p addressParser) checkHost(host string) error {
	if host == "" {
		return p.invalid("missing the host")
	}
	if i := indexControlByte(host); i >= 0 {
		return p.invalid(fmt.Sprintf("the host contains the control byte 0x%02x", host[i]))
	}
	if p.use == forBinding {
		if _, err := netip.ParseAddr(host); err != nil {
			return p.invalid(fmt.Sprintf(
				"the host %s is not an IP literal; a bind address names a local IP such as 127.0.0.1, [::1] or 0.0.0.0", quote(host)))
		}
	}
	return nil
}

// parsePort reads a decimal port: 1..65535 when dialling, 0..65535 when
// binding (0 lets the kernel choose).
func (p addressParser) parsePort(text string) (uint16, error) {
	if text == "" {
		return 0, p.invalid("missing the port number after \":\"")
	}
	for i := 0; i < len(text); i++ {
		if text[i] < '0' || text[i] > '9' {
			return 0, p.invalid(fmt.Sprintf("the port %s is not a decimal number", quote(text)))
		}
	}
	port, err := strconv.ParseUint(text, 10, 16)
	if err != nil {
		return 0, p.invalid(fmt.Sprintf("port %s is out of range; the largest is 65535", text))
	}
	if port == 0 && p.use == forDialling {
		return 0, p.invalid("port 0 is not allowed when dialling")
	}
	return uint16(port), nil
}

// parseSocketAuthority decodes and checks a unix socket path.
func (p addressParser) parseSocketAuthority(a *Address, authority string) error {
	if authority == "" {
		return p.invalid(`missing the socket path; percent-encode it, e.g. weida+unix://%2Ftmp%2Fs.sock/echo`)
	}
	if err := p.refuseLocalFingerprint(authority, "socket path"); err != nil {
		return err
	}
	decoded, err := url.PathUnescape(authority)
	if err != nil {
		return p.invalid("the socket path is not validly percent-encoded: " + err.Error())
	}
	limit := maxSocketPathBytes()
	switch {
	case len(decoded) > limit:
		return p.invalid(fmt.Sprintf("the socket path is %d bytes; at most %d are allowed on %s", len(decoded), limit, runtime.GOOS))
	case strings.IndexByte(decoded, 0) >= 0:
		return p.invalid("the socket path must not contain a NUL byte")
	case strings.IndexByte(decoded, '@') >= 0:
		return p.invalid(`the socket path must not contain "@"`)
	}
	a.SocketPath = decoded
	return nil
}

// parseBusAuthority checks an in-process bus name.
func (p addressParser) parseBusAuthority(a *Address, bus string) error {
	if bus == "" {
		return p.invalid("missing the bus name")
	}
	if err := p.refuseLocalFingerprint(bus, "bus name"); err != nil {
		return err
	}
	if len(bus) > maxBusBytes {
		return p.invalid(fmt.Sprintf("the bus name is %d bytes; at most %d are allowed", len(bus), maxBusBytes))
	}
	if i := indexControlByte(bus); i >= 0 {
		return p.invalid(fmt.Sprintf("the bus name contains the control byte 0x%02x", bus[i]))
	}
	a.Bus = bus
	return nil
}

// refuseLocalFingerprint refuses any "@" in a local authority, explaining
// a fingerprint specially: local peers are proved by the kernel (or not at
// all), so silently ignoring a key would mislead.
func (p addressParser) refuseLocalFingerprint(authority, part string) error {
	if !strings.Contains(authority, "@") {
		return nil
	}
	if strings.HasPrefix(authority, fingerprintPrefix) {
		return p.invalid("a local address carries no fingerprint; only weida:// addresses name a key")
	}
	return p.invalid(fmt.Sprintf(`the %s must not contain "@"`, part))
}

func (p addressParser) invalid(reason string) *errs.Error {
	return errs.New(errs.KindInvalidAddress, "invalid address %s: %s", quote(p.text), reason)
}

// maxSocketPathBytes is the longest socket path PROTOCOL.md §12 allows:
// 107 on Linux (sun_path minus its NUL), 104 on macOS and the BSDs.
func maxSocketPathBytes() int {
	switch runtime.GOOS {
	case "darwin", "ios", "freebsd", "netbsd", "openbsd", "dragonfly":
		return 104
	}
	return 107
}
