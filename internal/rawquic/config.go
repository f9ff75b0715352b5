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
// keep-alive period. o says what else of weida's the connection takes on.
func Config(dialling bool, o Options) *quic.Config {
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
	if o.Tracer {
		qc.Tracer = NopTracer
	}
	qc.RequireStreamCreditRelease = o.HoldStreamCredit
	return qc
}

// Options are the pieces of weida's QUIC use a baseline can take on, one
// at a time, to price each.
type Options struct {
	// Tracer installs NopTracer on both ends, as weida installs its
	// receipt tracker on both.
	Tracer bool
	// HoldStreamCredit gives a stream's credit back to the peer only when
	// its reader released it (quic.Config.RequireStreamCreditRelease), as
	// weida holds a one-way transfer's until it was read: what makes a full
	// queue stall its senders and a drain wait for the reader.
	HoldStreamCredit bool
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
