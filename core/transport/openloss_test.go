package transport

import (
	"testing"
	"time"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/wire"
)

// quic-go fails a waiting open as soon as the connection is closed, a few
// milliseconds before the connection's context ends. An open that fails so
// must leave the Conn ended (Err set) when it returns, or a dialer keeps
// choosing the dead connection and its callers fail in bursts.
func TestFailedOpenEndsTheConn(t *testing.T) {
	const idle = 300 * time.Millisecond
	cases := []struct {
		name string
		open func(c *Conn) error
	}{
		{"exchange", func(c *Conn) error {
			_, _, err := c.OpenBi(testContext(t), &wire.Data{Endpoint: wire.Some("/t")})
			return err
		}},
		{"one-way", func(c *Conn) error {
			_, err := c.OpenUni(testContext(t), &wire.Data{Endpoint: wire.Some("/t")})
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// One stream of each kind: the second open waits inside quic-go.
			limits := Limits{IdleTimeout: idle, MaxConcurrentBidiStreams: 1, MaxConcurrentUniStreams: 1}
			s := startServer(t, Config{Limits: limits})
			c, _ := dialServer(t, s, s.l.Addr(), Config{Limits: Limits{IdleTimeout: idle}})
			if err := tc.open(c); err != nil {
				t.Fatalf("first open: %v", err)
			}
			_ = s.l.udp.Close() // the server falls silent; the client's idle timeout ends the connection

			err := tc.open(c)
			if errs.KindOf(err) != errs.KindConnectionLost {
				t.Fatalf("the open waiting on the dead connection returned %v, want ConnectionLost", err)
			}
			if c.Err() == nil {
				t.Fatalf("the open failed with %v, but the connection's Err is still nil", err)
			}
		})
	}
}
