package weida_test

import (
	"bytes"
	"crypto/rand"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// Tests of what only local transports have: kernel-proved peers, socket
// files, group tokens, bus names and their address rules.

// TestLocalPeerIsTheKernelsPrincipal: over a unix socket the transfer
// carries the uid (and pid on Linux) the kernel proved; in process and
// over QUIC there is no local principal.
func TestLocalPeerIsTheKernelsPrincipal(t *testing.T) {
	forEachTransport(t, func(t *testing.T, tr testTransport) {
		b := tr.bind(t, testRuntime(t))
		pull, err := b.Puller("/jobs")
		if err != nil {
			t.Fatal(err)
		}
		push := pushpullPusher(t, testRuntime(t), nil, b.URL("/jobs"))
		if err := push.Send(ctxFor(t), []byte("who")); err != nil {
			t.Fatal(err)
		}
		_, meta, err := pull.Recv(ctxFor(t), 64)
		if err != nil {
			t.Fatal(err)
		}
		p, ok := meta.LocalPeer()
		if tr.name != "unix" {
			if ok {
				t.Fatalf("a %s peer has no local principal, got %v", tr.name, p)
			}
			return
		}
		if !ok || p.UID != uint32(os.Getuid()) || p.GID != uint32(os.Getgid()) {
			t.Fatalf("local peer %v (%v), want uid %d gid %d", p, ok, os.Getuid(), os.Getgid())
		}
		if runtime.GOOS == "linux" && p.PID != int32(os.Getpid()) {
			t.Fatalf("local peer pid %d, want %d", p.PID, os.Getpid())
		}
		if want := "uid=" + strconv.Itoa(os.Getuid()); !strings.HasPrefix(p.String(), want) {
			t.Fatalf("local peer prints as %q, want it to start with %q", p, want)
		}
	})
}

// TestUnixBindHygiene: a stale socket file does not block a bind; a live
// socket and a file that is not a socket are refused and left alone; the
// bound socket is mode 0600 and gone after Close.
func TestUnixBindHygiene(t *testing.T) {
	for _, tc := range []struct {
		name    string
		prepare func(t *testing.T, path string)
		kind    weida.ErrorKind // 0: the bind succeeds
	}{
		{"nothing there", func(*testing.T, string) {}, 0},
		{"stale socket file", func(t *testing.T, path string) {
			ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
			if err != nil {
				t.Fatal(err)
			}
			ln.SetUnlinkOnClose(false)
			_ = ln.Close()
		}, 0},
		{"live socket", func(t *testing.T, path string) {
			if _, err := testRuntime(t).Listener().BindUnix(path); err != nil {
				t.Fatal(err)
			}
		}, weida.KindAddressInUse},
		{"regular file", func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte("keep me"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, weida.KindAddressInUse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := testSocketPath(t)
			tc.prepare(t, path)
			before, _ := os.Lstat(path)
			b, err := testRuntime(t).Listener().BindUnix(path)
			reqrepWantKind(t, "bind", err, tc.kind)
			if tc.kind != 0 {
				after, statErr := os.Lstat(path)
				if statErr != nil || !os.SameFile(before, after) {
					t.Fatalf("a refused bind replaced %s (%v)", path, statErr)
				}
				return
			}
			fi, err := os.Lstat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
				t.Fatalf("socket mode %v, want a socket with 0600", fi.Mode())
			}
			b.Close()
			if _, err := os.Lstat(path); !os.IsNotExist(err) {
				t.Fatalf("the socket file outlived its binding: %v", err)
			}
		})
	}
}

// TestUnixUnknownGroupTokenRefused: a transfer or reverse connection whose
// token names no control connection is closed unanswered; a control
// connection, as the positive case, is answered with a token.
func TestUnixUnknownGroupTokenRefused(t *testing.T) {
	path := testSocketPath(t)
	b, err := testRuntime(t).Listener().BindUnix(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Puller("/jobs"); err != nil {
		t.Fatal(err)
	}
	var token [16]byte
	_, _ = rand.Read(token[:])
	for _, tc := range []struct {
		name     string
		preamble []byte
		answered int // bytes the listener must answer with; 0: closed unanswered
	}{
		{"control", []byte{0x01}, 16},
		{"transfer with an unknown token", append([]byte{0x02}, token[:]...), 0},
		{"reverse with an unknown token", append([]byte{0x03}, token[:]...), 0},
		{"unknown preamble", []byte{0x07}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("unix", path)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := conn.Write(tc.preamble); err != nil {
				t.Fatal(err)
			}
			if tc.answered > 0 {
				if _, err := io.ReadFull(conn, make([]byte, tc.answered)); err != nil {
					t.Fatalf("no %d-byte answer: %v", tc.answered, err)
				}
				return
			}
			// A DATA frame the listener must never take.
			_, _ = conn.Write([]byte{0, 5, 0, 0, 0, 'h', 'e', 'l', 'l', 'o'})
			if n, err := conn.Read(make([]byte, 1)); err == nil || n != 0 {
				t.Fatalf("read %d bytes, %v; want the connection closed", n, err)
			}
		})
	}
}

// TestLocalAddressRulesCheckedBeforeDialling: a local URL with a
// fingerprint, an over-long socket path or a bad bus name is
// InvalidAddress before anything is dialled, even where a server listens.
func TestLocalAddressRulesCheckedBeforeDialling(t *testing.T) {
	inproc := bindTestInproc(t, testRuntime(t))
	unix := bindTestUnix(t, testRuntime(t))
	fp := "sha256:" + strings.Repeat("ab", 32) + "@"
	withKey := func(u string) string {
		scheme, rest, _ := strings.Cut(u, "://")
		return scheme + "://" + fp + rest
	}
	for _, tc := range []struct {
		name, url string
	}{
		{"inproc with a fingerprint", withKey(inproc.URL("/x"))},
		{"unix with a fingerprint", withKey(unix.URL("/x"))},
		{"socket path over the limit", "weida+unix://" + url.PathEscape("/tmp/"+strings.Repeat("s", 120)) + "/x"},
		{"bus name over 256 bytes", "weida+inproc://" + strings.Repeat("b", 257) + "/x"},
		{"bus name with a control byte", "weida+inproc://bu\x01s/x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testRuntime(t).Pusher(weida.TrustByAddress())
			defer p.Close()
			reqrepWantKind(t, "connect "+tc.url, p.Connect(ctxFor(t), tc.url), weida.KindInvalidAddress)
		})
	}
}

// TestLocalBindingAddresses: a local binding proves no key, names its bus
// or socket, and hands out the URL a client dials.
func TestLocalBindingAddresses(t *testing.T) {
	rt := testRuntime(t)
	bus, err := rt.Listener().BindInproc("addresses-bus")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testRuntime(t).Listener().BindInproc("addresses-bus"); weida.KindOf(err) != weida.KindAddressInUse {
		t.Fatalf("a second bind of a bus: %v, want AddressInUse", err)
	}
	path := filepath.Join(t.TempDir(), "a b.sock")
	sock, err := rt.Listener().BindUnix(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		b         *weida.Binding
		addr, url string
	}{
		{bus, "addresses-bus", "weida+inproc://addresses-bus/echo"},
		{sock, path, "weida+unix://" + url.PathEscape(path) + "/echo"},
	} {
		if tc.b.HasFingerprint() {
			t.Fatalf("%s proves a key", tc.addr)
		}
		if got := tc.b.LocalAddr(); got != tc.addr {
			t.Fatalf("LocalAddr %q, want %q", got, tc.addr)
		}
		if got := tc.b.URL("/echo"); !sameUnescaped(got, tc.url) {
			t.Fatalf("URL %q, want %q", got, tc.url)
		}
	}
	bus.Close()
	if _, err := testRuntime(t).Listener().BindInproc("addresses-bus"); err != nil {
		t.Fatalf("the bus name stayed taken after Close: %v", err)
	}
}

// sameUnescaped compares two URLs after percent-decoding.
func sameUnescaped(a, b string) bool {
	ua, errA := url.PathUnescape(a)
	ub, errB := url.PathUnescape(b)
	return errA == nil && errB == nil && ua == ub
}

// TestLocalGoroutinesReturnToBaseline: after a round of every pattern over
// both local transports and Shutdown, no goroutine is left behind.
func TestLocalGoroutinesReturnToBaseline(t *testing.T) {
	baseline := runtime.NumGoroutine()
	func() {
		for _, bind := range []func(testing.TB, *weida.Runtime) *weida.Binding{bindTestInproc, bindTestUnix} {
			srv, err := weida.NewRuntime(weida.Config{})
			if err != nil {
				t.Fatal(err)
			}
			client, err := weida.NewRuntime(weida.Config{})
			if err != nil {
				t.Fatal(err)
			}
			b := bind(t, srv)
			rep, err := b.Replier("/echo")
			if err != nil {
				t.Fatal(err)
			}
			go func() {
				if r, err := rep.Accept(ctxFor(t), 64); err == nil {
					_ = r.Reply(ctxFor(t), r.Payload())
				}
			}()
			req := client.Requester(weida.TrustByAddress())
			if err := req.Connect(ctxFor(t), b.URL("/echo")); err != nil {
				t.Fatal(err)
			}
			if got, err := req.Request(ctxFor(t), []byte("ping"), 64); err != nil || !bytes.Equal(got, []byte("ping")) {
				t.Fatalf("request: %q, %v", got, err)
			}
			client.Shutdown()
			srv.Shutdown()
		}
	}()
	reqrepSettleGoroutines(t, baseline)
}

// TestInprocRedialWaitsOnTheRegistry: an in-process redial waits for its
// bus to be bound again, not for a timer (SEMANTICS.md §8.5): with a
// redial delay of an hour, rebinding the bus still brings it back at once.
func TestInprocRedialWaitsOnTheRegistry(t *testing.T) {
	srv := runtimeWith(t, weida.Config{})
	b := bindTestInproc(t, srv)
	if _, err := srv.Listener().Acceptor("/r"); err != nil {
		t.Fatal(err)
	}
	p := testRuntime(t).Peer(weida.TrustByAddress(), weida.WithReconnect(weida.ReconnectPolicy{Initial: time.Hour, Max: time.Hour}))
	events := p.Events()
	if err := p.Connect(ctxFor(t), b.URL("/r")); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, events, weida.EventConnected)
	bus := b.LocalAddr()
	srv.Shutdown()
	nextEvent(t, events, weida.EventLost)
	again := runtimeWith(t, weida.Config{})
	if _, err := again.Listener().Acceptor("/r"); err != nil {
		t.Fatal(err)
	}
	if _, err := again.Listener().BindInproc(bus); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, events, weida.EventConnected)
}
