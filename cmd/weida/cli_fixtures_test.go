package main

// Fixtures of the CLI tests: addresses, payloads, outcome checks, the
// library-side servers for outcomes no serve role produces, and the
// Pub/Sub helpers.

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

var fingerprintInAddress = regexp.MustCompile(`sha256:[0-9a-f]{64}`)

// fingerprintOf is the key an address names.
func fingerprintOf(t *testing.T, addr string) string {
	t.Helper()
	fp := fingerprintInAddress.FindString(addr)
	if fp == "" {
		t.Fatalf("address %q names no fingerprint", addr)
	}
	return fp
}

// withPath replaces the endpoint path of a weida:// address.
func withPath(t *testing.T, addr, path string) string {
	t.Helper()
	a, err := weida.ParseAddress(addr)
	if err != nil {
		t.Fatal(err)
	}
	return a.WithPath(path).String()
}

// addrHostPort is the host:port of a printed address.
func addrHostPort(t *testing.T, addr string) string {
	t.Helper()
	a, err := weida.ParseAddress(addr)
	if err != nil {
		t.Fatal(err)
	}
	return a.HostPort()
}

// randomBytes is n bytes no test could mistake for anything else.
func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// writeFile writes data to a file in a fresh temporary directory.
func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// closedUDPPort is a loopback port nothing listens on.
func closedUDPPort(t *testing.T) int {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := conn.LocalAddr().(*net.UDPAddr).Port
	conn.Close()
	return port
}

// expectOutcome checks the exit status, that stderr mentions want, and,
// for every failure, that nothing reached stdout.
func expectOutcome(t *testing.T, r result, code int, want string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit %d, want %d; stderr:\n%s", r.code, code, r.stderr)
	}
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr does not mention %q:\n%s", want, r.stderr)
	}
	if code != exitOK && len(r.stdout) != 0 {
		t.Errorf("a failure wrote %d bytes to stdout: %q", len(r.stdout), r.stdout)
	}
}

// mustGenerateCertificatePEM is a CA certificate that signed no server here.
func mustGenerateCertificatePEM(t *testing.T) []byte {
	t.Helper()
	id, err := weida.GenerateIdentityFor([]string{"localhost", "127.0.0.1", "::1"})
	if err != nil {
		t.Fatal(err)
	}
	return id.CertificatePEM()
}

// smallCeiling is what /small takes whole; more is refused.
const smallCeiling = 1 << 10

// startLibraryServer serves, in this process with the library, the
// outcomes no serve role produces: /silent releases every request
// unanswered (NO_REPLY, exit 5), /refuse refuses every request and /small
// every transfer above smallCeiling (REJECTED, exit 3). It returns the
// address of /silent.
func startLibraryServer(t *testing.T) string {
	t.Helper()
	rt, id := libraryRuntime(t)
	l := rt.Listener()
	silent, err := l.Replier("/silent")
	if err != nil {
		t.Fatal(err)
	}
	refuse, err := l.Replier("/refuse")
	if err != nil {
		t.Fatal(err)
	}
	small, err := l.Puller("/small")
	if err != nil {
		t.Fatal(err)
	}
	binding, err := l.BindQUIC("127.0.0.1:0", id)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	go answerEvery(ctx, silent, (*weida.IncomingExchange).Close)
	go answerEvery(ctx, refuse, (*weida.IncomingExchange).Refuse)
	go func() {
		// Recv refuses what exceeds the ceiling and goes on.
		for {
			if _, _, err := small.Recv(ctx, smallCeiling); weida.KindOf(err) != weida.KindLimitExceeded && err != nil {
				return
			}
		}
	}()
	return binding.URL("/silent")
}

// libraryRuntime is a runtime for a test's own server, shut down when the
// test ends, and an identity for it to bind with.
func libraryRuntime(t *testing.T) (*weida.Runtime, *weida.Identity) {
	t.Helper()
	rt, err := weida.NewRuntime(weida.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Shutdown)
	id, err := weida.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	return rt, id
}

// answerEvery answers each exchange at r with answer until the runtime
// ends.
func answerEvery(ctx context.Context, r *weida.Replier, answer func(*weida.IncomingExchange) error) {
	for {
		ex, err := r.AcceptStream(ctx)
		if err != nil {
			return
		}
		_ = answer(ex)
	}
}

// publishedLine is what serve --pub writes per line of stdin.
var publishedLine = regexp.MustCompile(`^published topic=(.*) subscribers=(\d+)$`)

// publish feeds one line to a serve --pub and returns the topic and the
// subscriber count its stderr reports for it.
func (p *proc) publish(t *testing.T, line string) (topic string, reached int) {
	t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		t.Fatal(err)
	}
	m := p.expectMatch(t, publishedLine)
	n, err := strconv.Atoi(m[2])
	if err != nil {
		t.Fatal(err)
	}
	return m[1], n
}

// awaitSubscription publishes probe until it reaches one subscriber.
// SUBSCRIBE has no reply, so a publisher's count is the only outside sign
// that a subscription arrived. Every probe before the one that reached the
// subscriber reached no one, and that subscriber receives exactly one
// probe. The test's one subscriber must match the probe's topic.
func (p *proc) awaitSubscription(t *testing.T, probe string) {
	t.Helper()
	deadline := time.Now().Add(lineTimeout)
	for time.Now().Before(deadline) {
		switch _, n := p.publish(t, probe); n {
		case 0:
			continue
		case 1:
			return
		default:
			t.Fatalf("probe %q reached %d subscribers, want 1", probe, n)
		}
	}
	t.Fatalf("no subscription arrived within %v", lineTimeout)
}

// framed is payloads as sub writes them in form, built independently of
// the code under test (SURFACE.md §1.4).
func framed(t *testing.T, form string, payloads ...string) []byte {
	t.Helper()
	var out []byte
	for _, p := range payloads {
		switch form {
		case "line":
			out = append(append(out, p...), '\n')
		case "nul":
			out = append(append(out, p...), 0)
		case "raw":
			out = append(out, p...)
		case "length":
			out = append(binary.BigEndian.AppendUint64(out, uint64(len(p))), p...)
		default:
			t.Fatalf("no framing %q", form)
		}
	}
	return out
}
