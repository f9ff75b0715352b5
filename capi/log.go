package main

/*
#include "logcb.h"
*/
import "C"

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// The log callback (weida_set_log_callback) is one per process: every
// runtime the ABI makes logs through abiLogger, whose handler calls it on
// the goroutine that logged. A call holds callback.mu for reading, so
// setting a new one (which takes it for writing) waits out every call in
// flight: once weida_set_log_callback returns, the old callback never runs
// again. From inside the callback, where that wait would be on itself, the
// swap is made without it.
var callback struct {
	mu sync.RWMutex
	// target is swapped whole, atomically: a swap from inside the callback
	// holds no write lock, and other calls may be reading it.
	target atomic.Pointer[logTarget]
}

// logTarget is one installed callback; nil when none is.
type logTarget struct {
	fn   C.weida_log_fn
	user C.uintptr_t
	min  slog.Level
}

// abiLogger is every ABI runtime's weida.Config.Logger.
var abiLogger = slog.New(abiHandler{})

//export weida_set_log_callback
func weida_set_log_callback(minLevel C.int, fn C.weida_log_fn, user C.uintptr_t) (rc C.int) {
	defer recoverInto(&rc)
	if C.weida_bridge_in_log_callback() == 0 {
		callback.mu.Lock()
		defer callback.mu.Unlock()
	}
	if fn == nil {
		callback.target.Store(nil)
	} else {
		callback.target.Store(&logTarget{fn: fn, user: user, min: slog.Level(minLevel)})
	}
	return codeOK
}

// abiHandler is the slog.Handler behind abiLogger; attrs are the ones
// WithAttrs added, already rendered, and group the WithGroup prefix.
type abiHandler struct {
	attrs string
	group string
}

func (abiHandler) Enabled(_ context.Context, level slog.Level) bool {
	t := callback.target.Load()
	return t != nil && level >= t.min
}

func (h abiHandler) Handle(_ context.Context, r slog.Record) error {
	if C.weida_bridge_in_log_callback() != 0 {
		return nil // a line the callback caused: never fed back into it
	}
	var b strings.Builder
	b.WriteString(h.attrs)
	r.Attrs(func(a slog.Attr) bool {
		appendAttr(&b, h.group, a)
		return true
	})
	callback.mu.RLock()
	defer callback.mu.RUnlock()
	t := callback.target.Load()
	if t == nil || r.Level < t.min {
		return nil
	}
	msg, attrs := cText(r.Message), cText(b.String())
	C.weida_bridge_log(t.fn, t.user, C.int(r.Level),
		(*C.char)(unsafe.Pointer(&msg[0])), (*C.char)(unsafe.Pointer(&attrs[0])))
	return nil
}

func (h abiHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	var b strings.Builder
	b.WriteString(h.attrs)
	for _, a := range attrs {
		appendAttr(&b, h.group, a)
	}
	return abiHandler{attrs: b.String(), group: h.group}
}

func (h abiHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return abiHandler{attrs: h.attrs, group: h.group + name + "."}
}

// appendAttr writes " key=value" (no leading space for the first), the
// value quoted when it would not read back as one token.
func appendAttr(b *strings.Builder, group string, a slog.Attr) {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return
	}
	if a.Value.Kind() == slog.KindGroup {
		for _, ga := range a.Value.Group() {
			appendAttr(b, group+a.Key+".", ga)
		}
		return
	}
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	b.WriteString(group + a.Key)
	b.WriteByte('=')
	v := a.Value.String()
	if v == "" || strings.ContainsAny(v, " =\"\t\n\r") {
		v = strconv.Quote(v)
	}
	b.WriteString(v)
}

// cText is s NUL-terminated, for a call that borrows it.
func cText(s string) []byte {
	return append([]byte(s), 0)
}
