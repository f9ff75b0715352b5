package transport

import (
	"crypto/tls"
	"errors"
	"testing"
	"time"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/wire"
)

func TestStatelessResetKeyFollowsTheIdentity(t *testing.T) {
	_, a := serverTLS(t)
	_, b := serverTLS(t)
	cases := []struct {
		name      string
		x, y      *tls.Config
		wantEqual bool
	}{
		{"same identity, two derivations", a, a.Clone(), true},
		{"different identities", a, b, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kx, ky := statelessResetKey(tc.x), statelessResetKey(tc.y)
			if kx == nil || ky == nil {
				t.Fatal("no reset key derived from a server identity")
			}
			if (*kx == *ky) != tc.wantEqual {
				t.Fatalf("keys equal = %v, want %v", *kx == *ky, tc.wantEqual)
			}
		})
	}
	for _, conf := range []*tls.Config{nil, {}} {
		if k := statelessResetKey(conf); k != nil {
			t.Fatalf("a key derived without a certificate: %x", *k)
		}
	}
}

// A server that died without closing its connections and listens again
// with the same identity on the same address resets its old clients at
// their next packet, long before their idle timeout.
func TestRestartedListenerResetsOldConnections(t *testing.T) {
	const idle = time.Minute
	cfg := Config{Limits: Limits{IdleTimeout: idle}}
	id, tlsConf := serverTLS(t)
	first, err := Listen("127.0.0.1:0", tlsConf, cfg, newRecorder())
	if err != nil {
		t.Fatal(err)
	}
	addr := first.Addr()
	c, h := dialServer(t, &server{l: first, id: id}, addr, cfg)

	// A crash: the socket goes first, so no CONNECTION_CLOSE reaches the client.
	_ = first.udp.Close()
	first.Close(wire.CodeShutdown, "crashed")
	second, err := Listen(addr.String(), tlsConf, cfg, newRecorder())
	if err != nil {
		t.Fatalf("listening again on %s: %v", addr, err)
	}
	t.Cleanup(func() { second.Close(wire.CodeShutdown, "test over") })

	// Any packet from the client draws the reset.
	if _, err := c.OpenUniNow(&wire.Data{Endpoint: wire.Some("/t")}); err != nil {
		t.Fatalf("opening a stream toward the restarted server: %v", err)
	}
	select {
	case err := <-h.closed:
		var e *errs.Error
		if !errors.As(err, &e) || e.Kind != errs.KindConnectionLost || e.Cause != errs.CauseReset {
			t.Fatalf("the old connection ended with %v, want ConnectionLost(Reset)", err)
		}
	case <-time.After(idle / 3):
		t.Fatal("the old connection was not reset; it would wait out the idle timeout")
	}
}

// serverTLS is a fresh server identity and its TLS configuration.
func serverTLS(t *testing.T) (*identity.Identity, *tls.Config) {
	t.Helper()
	id, err := identity.Generate()
	if err != nil {
		t.Fatal(err)
	}
	conf, err := identity.ServerConfig(id, identity.ClientAnonymousAllowed, identity.TrustByAddress(), wire.ALPN)
	if err != nil {
		t.Fatal(err)
	}
	return id, conf
}
