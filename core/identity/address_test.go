package identity

import (
	"runtime"
	"strings"
	"testing"

	"github.com/weida-go/weida/core/errs"
)

func TestParseAddressValid(t *testing.T) {
	fp := vectorFingerprint()
	tests := []struct {
		in   string
		want Address
		// canonical is what String prints; empty means the input itself.
		canonical string
	}{
		{in: "weida://127.0.0.1:7443/x",
			want: Address{Scheme: SchemeQUIC, Host: "127.0.0.1", Port: 7443, Path: "/x"}},
		{in: "weida://" + vectorText + "@127.0.0.1:7443/x",
			want: Address{Scheme: SchemeQUIC, Fingerprint: fp, HasFingerprint: true, Host: "127.0.0.1", Port: 7443, Path: "/x"}},
		{in: "weida://[::1]:7443/x",
			want: Address{Scheme: SchemeQUIC, Host: "::1", Port: 7443, Path: "/x"}},
		{in: "weida://" + vectorText + "@[2001:db8::1]:65535/a/b",
			want: Address{Scheme: SchemeQUIC, Fingerprint: fp, HasFingerprint: true, Host: "2001:db8::1", Port: 65535, Path: "/a/b"}},
		{in: "weida://Example.COM:1/", // host kept as written; "/" is a valid path
			want: Address{Scheme: SchemeQUIC, Host: "Example.COM", Port: 1, Path: "/"}},
		{in: "weida://h:80/p@q?r#s*..%20", // the path is opaque; "@" after the first "/" is path
			want: Address{Scheme: SchemeQUIC, Host: "h", Port: 80, Path: "/p@q?r#s*..%20"}},
		{in: "weida://h:080/x", canonical: "weida://h:80/x",
			want: Address{Scheme: SchemeQUIC, Host: "h", Port: 80, Path: "/x"}},
		{in: "weida+unix://%2Ftmp%2Fs.sock/echo",
			want: Address{Scheme: SchemeUnix, SocketPath: "/tmp/s.sock", Path: "/echo"}},
		{in: "weida+unix://%2ftmp%2fs.sock/echo", canonical: "weida+unix://%2Ftmp%2Fs.sock/echo",
			want: Address{Scheme: SchemeUnix, SocketPath: "/tmp/s.sock", Path: "/echo"}},
		{in: "weida+unix://run.sock/a", // relative socket path
			want: Address{Scheme: SchemeUnix, SocketPath: "run.sock", Path: "/a"}},
		{in: "weida+unix://%2Fa%20b%3Ac/x",
			want: Address{Scheme: SchemeUnix, SocketPath: "/a b:c", Path: "/x"}},
		{in: "weida+inproc://bus/echo",
			want: Address{Scheme: SchemeInproc, Bus: "bus", Path: "/echo"}},
		{in: "weida+inproc://" + strings.Repeat("b", 256) + "/x",
			want: Address{Scheme: SchemeInproc, Bus: strings.Repeat("b", 256), Path: "/x"}},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseAddress(tc.in)
			if err != nil {
				t.Fatalf("ParseAddress: %v", err)
			}
			if got != tc.want {
				t.Fatalf("parsed %+v\nwant   %+v", got, tc.want)
			}
			canonical := tc.canonical
			if canonical == "" {
				canonical = tc.in
			}
			if s := got.String(); s != canonical {
				t.Fatalf("String() = %q, want %q", s, canonical)
			}
			if again, err := ParseAddress(got.String()); err != nil || again != got {
				t.Fatalf("reparsing the printed form gave %+v, %v", again, err)
			}
		})
	}
}

func TestParseAddressRejects(t *testing.T) {
	digits := strings.TrimPrefix(vectorText, "sha256:")
	longSocket := "%2F" + strings.Repeat("s", maxSocketPathBytes()) // one byte too long once decoded
	tests := []struct {
		name, in      string
		kind          errs.Kind
		wantInMessage string
	}{
		{"no scheme", "127.0.0.1:7443/x", errs.KindInvalidAddress, "missing the scheme"},
		{"unknown scheme", "http://h:1/x", errs.KindInvalidAddress, `unknown scheme "http"`},
		{"uppercase scheme", "WEIDA://h:1/x", errs.KindInvalidAddress, `unknown scheme "WEIDA"`},
		{"named pipe", "weida+pipe://name/x", errs.KindInvalidAddress, "named pipes are not supported"},
		{"no path", "weida://h:1", errs.KindInvalidAddress, "missing the endpoint path"},
		{"empty authority", "weida:///x", errs.KindInvalidAddress, "missing the host and port"},
		{"no port", "weida://h/x", errs.KindInvalidAddress, `missing ":port"`},
		{"empty port", "weida://h:/x", errs.KindInvalidAddress, "missing the port number"},
		{"port 0", "weida://h:0/x", errs.KindInvalidAddress, "port 0 is not allowed when dialling"},
		{"port too big", "weida://h:65536/x", errs.KindInvalidAddress, "port 65536 is out of range"},
		{"port not decimal", "weida://h:0x50/x", errs.KindInvalidAddress, `the port "0x50" is not a decimal number`},
		{"signed port", "weida://h:+80/x", errs.KindInvalidAddress, "not a decimal number"},
		{"empty host", "weida://:7443/x", errs.KindInvalidAddress, "missing the host"},
		{"control byte in host", "weida://h\x01:1/x", errs.KindInvalidAddress, "control byte 0x01"},
		{"unbracketed IPv6", "weida://::1:7443/x", errs.KindInvalidAddress, "must be written in brackets"},
		{"unclosed bracket", "weida://[::1:7443/x", errs.KindInvalidAddress, "never closed"},
		{"bracketed IPv4", "weida://[127.0.0.1]:1/x", errs.KindInvalidAddress, "is not an IPv6 literal"},
		{"bracketed name", "weida://[host]:1/x", errs.KindInvalidAddress, "is not an IPv6 literal"},
		{"bracket without port", "weida://[::1]/x", errs.KindInvalidAddress, `missing ":port"`},
		{"junk after bracket", "weida://[::1]x:1/x", errs.KindInvalidAddress, `missing ":port"`},
		{"uppercase fingerprint prefix", "weida://SHA256:" + digits + "@h:1/x", errs.KindInvalidFingerprint, `lowercase prefix "sha256:"`},
		{"bare hex fingerprint", "weida://" + digits + "@h:1/x", errs.KindInvalidFingerprint, `lowercase prefix "sha256:"`},
		{"short fingerprint", "weida://sha256:" + digits[:63] + "@h:1/x", errs.KindInvalidFingerprint, "not 63"},
		{"fingerprint up to the last @", "weida://" + vectorText + "@x@h:1/x", errs.KindInvalidFingerprint, "not 66"},
		{"empty fingerprint", "weida://@h:1/x", errs.KindInvalidFingerprint, "invalid fingerprint"},
		{"path with control byte", "weida://h:1/a\tb", errs.KindInvalidEndpointPath, "control byte 0x09 at offset 2"},
		{"path too long", "weida://h:1/" + strings.Repeat("p", 512), errs.KindInvalidEndpointPath, "is 513 bytes"},
		{"unix fingerprint", "weida+unix://" + vectorText + "@%2Fs/x", errs.KindInvalidAddress, "a local address carries no fingerprint"},
		{"unix empty socket", "weida+unix:///tmp/s.sock/x", errs.KindInvalidAddress, "percent-encode it"},
		{"unix raw @", "weida+unix://a@b/x", errs.KindInvalidAddress, `the socket path must not contain "@"`},
		{"unix encoded @", "weida+unix://a%40b/x", errs.KindInvalidAddress, `the socket path must not contain "@"`},
		{"unix encoded NUL", "weida+unix://a%00b/x", errs.KindInvalidAddress, "NUL"},
		{"unix bad escape", "weida+unix://a%2/x", errs.KindInvalidAddress, "not validly percent-encoded"},
		{"unix too long", "weida+unix://" + longSocket + "/x", errs.KindInvalidAddress, "at most"},
		{"unix no path", "weida+unix://%2Fs", errs.KindInvalidAddress, "missing the endpoint path"},
		{"inproc fingerprint", "weida+inproc://" + vectorText + "@bus/x", errs.KindInvalidAddress, "a local address carries no fingerprint"},
		{"inproc @", "weida+inproc://a@b/x", errs.KindInvalidAddress, `the bus name must not contain "@"`},
		{"inproc empty bus", "weida+inproc:///x", errs.KindInvalidAddress, "missing the bus name"},
		{"inproc bus too long", "weida+inproc://" + strings.Repeat("b", 257) + "/x", errs.KindInvalidAddress, "257 bytes"},
		{"inproc control byte", "weida+inproc://b\x7f\x1f/x", errs.KindInvalidAddress, "control byte 0x1f"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := ParseAddress(tc.in)
			if err == nil {
				t.Fatalf("accepted as %+v", a)
			}
			if errs.KindOf(err) != tc.kind {
				t.Fatalf("kind %v, want %v (%v)", errs.KindOf(err), tc.kind, err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "invalid address ") || !strings.Contains(msg, tc.wantInMessage) {
				t.Fatalf("message %q does not say %q", msg, tc.wantInMessage)
			}
		})
	}
}

func TestParseBindAddress(t *testing.T) {
	valid := []struct {
		in   string
		want Address
	}{
		{"weida://127.0.0.1:0/echo", Address{Scheme: SchemeQUIC, Host: "127.0.0.1", Port: 0, Path: "/echo"}},
		{"weida://0.0.0.0:7443/x", Address{Scheme: SchemeQUIC, Host: "0.0.0.0", Port: 7443, Path: "/x"}},
		{"weida://[::]:0/x", Address{Scheme: SchemeQUIC, Host: "::", Port: 0, Path: "/x"}},
		{"weida+unix://%2Ftmp%2Fs.sock/echo", Address{Scheme: SchemeUnix, SocketPath: "/tmp/s.sock", Path: "/echo"}},
		{"weida+inproc://bus/x", Address{Scheme: SchemeInproc, Bus: "bus", Path: "/x"}},
	}
	for _, tc := range valid {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseBindAddress(tc.in)
			if err != nil {
				t.Fatalf("ParseBindAddress: %v", err)
			}
			if got != tc.want {
				t.Fatalf("parsed %+v\nwant   %+v", got, tc.want)
			}
			if s := got.String(); s != tc.in {
				t.Fatalf("String() = %q, want the argument back", s)
			}
		})
	}

	rejects := []struct{ name, in, wantInMessage string }{
		{"fingerprint", "weida://" + vectorText + "@127.0.0.1:0/x", "the fingerprint is what serve prints"},
		{"host name", "weida://localhost:7443/x", `the host "localhost" is not an IP literal`},
		{"missing path", "weida://127.0.0.1:0", "missing the endpoint path"},
		{"port too big", "weida://127.0.0.1:70000/x", "out of range"},
		{"local fingerprint", "weida+unix://" + vectorText + "@s/x", "a local address carries no fingerprint"},
		{"named pipe", "weida+pipe://p/x", "named pipes are not supported"},
	}
	for _, tc := range rejects {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseBindAddress(tc.in)
			if errs.KindOf(err) != errs.KindInvalidAddress || !strings.Contains(err.Error(), tc.wantInMessage) {
				t.Fatalf("error %v, want InvalidAddress saying %q", err, tc.wantInMessage)
			}
		})
	}
}

// The same text can be a valid bind address and an invalid dialling one, and vice versa.
func TestBindAndDialDiffer(t *testing.T) {
	if _, err := ParseAddress("weida://127.0.0.1:0/x"); err == nil {
		t.Error("dialling port 0 was accepted")
	}
	if _, err := ParseBindAddress("weida://127.0.0.1:0/x"); err != nil {
		t.Errorf("binding port 0: %v", err)
	}
	if _, err := ParseAddress("weida://localhost:1/x"); err != nil {
		t.Errorf("dialling a host name: %v", err)
	}
	if _, err := ParseBindAddress("weida://localhost:1/x"); err == nil {
		t.Error("binding a host name was accepted")
	}
}

func TestSocketPathLimitIsInclusive(t *testing.T) {
	limit := maxSocketPathBytes()
	in := "weida+unix://%2F" + strings.Repeat("s", limit-1) + "/x"
	a, err := ParseAddress(in)
	if err != nil {
		t.Fatalf("a %d-byte socket path on %s: %v", limit, runtime.GOOS, err)
	}
	if len(a.SocketPath) != limit {
		t.Fatalf("decoded %d bytes, want %d", len(a.SocketPath), limit)
	}
}

func TestAddressPrinting(t *testing.T) {
	fp := vectorFingerprint()
	tests := []struct {
		addr Address
		want string
	}{
		{Address{Scheme: SchemeQUIC, Fingerprint: fp, HasFingerprint: true, Host: "127.0.0.1", Port: 7443, Path: "/echo"},
			"weida://" + vectorText + "@127.0.0.1:7443/echo"},
		{Address{Scheme: SchemeQUIC, Host: "::1", Port: 9, Path: "/x"}, "weida://[::1]:9/x"},
		{Address{Scheme: SchemeQUIC, Host: "fe80::1%eth0", Port: 9, Path: "/x"}, "weida://[fe80::1%eth0]:9/x"},
		{Address{Scheme: SchemeUnix, SocketPath: "/run/a@b c%.sock", Path: "/x"}, "weida+unix://%2Frun%2Fa%40b%20c%25.sock/x"},
		{Address{Scheme: SchemeInproc, Bus: "bus", Path: "/x"}, "weida+inproc://bus/x"},
		{Address{}, `<address with unknown scheme "">`},
	}
	for _, tc := range tests {
		if got := tc.addr.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
	if got := (Address{Host: "::1", Port: 7443}).HostPort(); got != "[::1]:7443" {
		t.Errorf("HostPort() = %q", got)
	}
}

func TestWithPathKeepsTheRest(t *testing.T) {
	a := mustParseAddress(t, "weida://"+vectorText+"@h:1/a")
	b := a.WithPath("/b")
	if b.Path != "/b" || a.Path != "/a" {
		t.Fatalf("paths %q and %q", a.Path, b.Path)
	}
	if b.WithPath("/a") != a {
		t.Fatal("WithPath changed more than the path")
	}
}

func TestValidatePath(t *testing.T) {
	tests := []struct {
		path, wantInMessage string
	}{
		{"/", ""},
		{"/a/b/../*%20", ""},
		{"/" + strings.Repeat("p", 511), ""},
		{"/" + strings.Repeat("p", 512), "is 513 bytes; at most 512"},
		{"", "must not be empty"},
		{"echo", `must start with "/"`},
		{"/a\x00", "control byte 0x00 at offset 2"},
		{"/a\x1f", "control byte 0x1f"},
	}
	for _, tc := range tests {
		err := ValidatePath(tc.path)
		if tc.wantInMessage == "" {
			if err != nil {
				t.Errorf("ValidatePath(%q): %v", tc.path, err)
			}
			continue
		}
		if errs.KindOf(err) != errs.KindInvalidEndpointPath || !strings.Contains(err.Error(), tc.wantInMessage) {
			t.Errorf("ValidatePath(%q) = %v, want InvalidEndpointPath saying %q", tc.path, err, tc.wantInMessage)
		}
	}
}
