package main

import (
	"log/slog"
	"strings"
	"testing"
)

// The attributes reach C as one line of key=value text that reads back
// unambiguously: values with spaces, '=', quotes or nothing are quoted,
// and group members are prefixed with the group's name.
func TestLogAttrsRenderAsKeyValueText(t *testing.T) {
	var b strings.Builder
	for _, a := range []slog.Attr{
		slog.String("peer", "anonymous"),
		slog.String("reason", "the peer closed the connection (NO_ERROR)"),
		slog.String("empty", ""),
		slog.Int("n", 3),
		slog.Group("conn", slog.String("side", "dialled")),
		{},
	} {
		appendAttr(&b, "", a)
	}
	want := `peer=anonymous reason="the peer closed the connection (NO_ERROR)" empty="" n=3 conn.side=dialled`
	if got := b.String(); got != want {
		t.Fatalf("rendered %q, want %q", got, want)
	}
	h := abiHandler{}.WithGroup("broker").WithAttrs([]slog.Attr{slog.String("queue", "/jobs")})
	if got := h.(abiHandler).attrs; got != "broker.queue=/jobs" {
		t.Fatalf("WithGroup then WithAttrs rendered %q", got)
	}
}
