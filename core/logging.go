package weida

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/internal/lograte"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// What a runtime logs through Config.Logger, and at which level:
//
//   - Info: a connection opened (after its negotiation succeeded) and
//     closed, with the peer's fingerprint (or "anonymous"), the remote
//     address, which side dialled, and why it closed.
//   - Warn: a negotiation failed, naming the dimension.
//   - Debug: a dial that failed for another reason (the redial loop
//     retries it), and a transfer refused UNKNOWN_ENDPOINT or
//     UNSUPPORTED; these can come once per message, so each runtime lets
//     at most lograte.DefaultBurst of them through a second and the next
//     one says how many it left out.
//
// Nothing is logged per message at Info or above.

var discardLogger = slog.New(slog.DiscardHandler)

// logger is Config.Logger, or one that discards everything.
func (rt *Runtime) logger() *slog.Logger {
	if rt.cfg.Logger == nil {
		return discardLogger
	}
	return rt.cfg.Logger
}

// connAttrs names a connection: its peer, remote address and side.
func connAttrs(c *transport.Conn) []slog.Attr {
	peer := "anonymous"
	if fp, ok := c.Peer(); ok {
		peer = fp.String()
	}
	side := "accepted"
	if c.Dialling() {
		side = "dialled"
	}
	attrs := []slog.Attr{slog.String("peer", peer), slog.String("remote", c.RemoteAddr()), slog.String("side", side)}
	if p := c.Path(); p != "" {
		attrs = append(attrs, slog.String("path", p))
	}
	return attrs
}

func (rt *Runtime) logConn(level slog.Level, msg string, c *transport.Conn, more ...slog.Attr) {
	log := rt.logger()
	if !log.Enabled(context.Background(), level) {
		return
	}
	log.LogAttrs(context.Background(), level, msg, append(connAttrs(c), more...)...)
}

// logConnOpened records a connection whose negotiation succeeded.
func (rt *Runtime) logConnOpened(c *transport.Conn) {
	rt.logConn(slog.LevelInfo, "weida: connection opened", c)
}

// logConnClosed records a connection's end: a failed negotiation at Warn
// naming the dimension, any other end at Info with the reason.
func (rt *Runtime) logConnClosed(c *transport.Conn, err error) {
	if errs.KindOf(err) == errs.KindNegotiation {
		rt.logConn(slog.LevelWarn, "weida: negotiation failed", c,
			slog.String("dimension", negotiationDimension(err)), slog.String("error", err.Error()))
		return
	}
	reason := "closed"
	if err != nil {
		reason = err.Error()
	}
	rt.logConn(slog.LevelInfo, "weida: connection closed", c, slog.String("reason", reason))
}

// logDialled records the outcome of a dial: opened, or failed for a reason
// other than negotiation (logConnClosed already told that one).
func (rt *Runtime) logDialled(addr Address, c *transport.Conn, err error) {
	switch {
	case err == nil:
		rt.logConnOpened(c)
	case errs.KindOf(err) != errs.KindNegotiation:
		rt.logger().LogAttrs(context.Background(), slog.LevelDebug, "weida: dial failed",
			slog.String("address", addr.String()), slog.String("error", err.Error()))
	}
}

// logRefused records a transfer or exchange refused with code at path,
// through the runtime's rate gate.
func (rt *Runtime) logRefused(c *transport.Conn, path string, code wire.AppCode) {
	log := rt.logger()
	if !log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	ok, held := rt.refusals.Allow()
	if !ok {
		return
	}
	attrs := append(connAttrs(c), slog.String("endpoint", path), slog.String("code", code.String()))
	if held > 0 {
		attrs = append(attrs, slog.Uint64("suppressed", held))
	}
	log.LogAttrs(context.Background(), slog.LevelDebug, "weida: transfer refused", attrs...)
}

// negotiationDimension is the dimension a negotiation error names: from
// the wire's error on the side that found it, else from the close reason
// the peer sent ("negotiation failed: ordering: ...").
func negotiationDimension(err error) string {
	var ne *wire.NegotiationError
	if errors.As(err, &ne) {
		return ne.Dimension
	}
	const lead = "negotiation failed: "
	text := err.Error()
	if i := strings.Index(text, lead); i >= 0 {
		rest := text[i+len(lead):]
		if j := strings.Index(rest, ":"); j > 0 {
			return rest[:j]
		}
	}
	return "unknown"
}

// Opened implements transport.Opener for accepted connections.
func (rt router) Opened(c *transport.Conn) { rt.l.rt.logConnOpened(c) }

// refusalGate is the runtime's bound on per-message refusal lines.
type refusalGate = lograte.Gate
