package rawquic

import (
	"context"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/qlogwriter"

	"github.com/weida-go/weida/core/transport"
)

// Config returns the quic.Config weida's transport builds from its default
// limits (1 MiB stream / 16 MiB connection windows with initial = max, 1024
// bidi / 2048 uni streams, the same timeouts), so a difference measured
// against weida is weida's own work. The dialling side also gets weida's
// keep-alive period. withTracer installs NopTracer on the connection.
func Config(dialling, withTracer bool) *quic.Config {
	qc := &quic.Config{
		HandshakeIdleTimeout:           transport.DefaultHandshakeTimeout,
		MaxIdleTimeout:                 transport.DefaultIdleTimeout,
		InitialStreamReceiveWindow:     transport.DefaultStreamWindow,
		MaxStreamReceiveWindow:         transport.DefaultStreamWindow,
		InitialConnectionReceiveWindow: transport.DefaultConnectionWindow,
		MaxConnectionReceiveWindow:     transport.DefaultConnectionWindow,
		MaxIncomingStreams:             transport.DefaultMaxBidiStreams,
		MaxIncomingUniStreams:          transport.DefaultMaxUniStreams,
	}
	if dialling {
		qc.KeepAlivePeriod = transport.DefaultKeepAlive
	}
	if withTracer {
		qc.Tracer = NopTracer
	}
	return qc
}

// NopTracer is a quic.Config Tracer whose recorder ignores every event.
// quic-go still builds each qlog event for it, so a tracer-on/tracer-off
// comparison isolates the cost of tracing from the cost of what weida's
// receipt tracker does with the events.
func NopTracer(context.Context, bool, quic.ConnectionID) qlogwriter.Trace { return nopTrace{} }

// nopTrace is both the trace and its only recorder.
type nopTrace struct{}

func (nopTrace) AddProducer() qlogwriter.Recorder { return nopTrace{} }
func (nopTrace) RecordEvent(qlogwriter.Event)     {}
func (nopTrace) Close() error                     { return nil }
