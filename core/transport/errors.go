package transport

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/wire"
)

// refusalError maps a stop or reset code the peer chose to the error kind a
// local caller sees (PROTOCOL.md §10.2). what says which side acted.
func refusalError(code uint64, what string) error {
	switch wire.AppCode(code) {
	case wire.CodeRejected:
		return errs.New(errs.KindRejected, "%s: the peer rejected the transfer", what)
	case wire.CodeCanceled:
		return errs.New(errs.KindCanceled, "%s: the transfer was canceled", what)
	case wire.CodeUnknownEndpoint:
		return errs.New(errs.KindUnknownEndpoint, "%s: no endpoint is registered at that path", what)
	case wire.CodeUnsupported:
		return errs.New(errs.KindUnsupported, "%s: the path does not serve this kind of transfer", what)
	case wire.CodeShutdown:
		return errs.New(errs.KindRejected, "%s: the peer is shutting down", what)
	case wire.CodeLimitExceeded:
		return errs.New(errs.KindLimitExceeded, "%s: the peer's limit was exceeded", what)
	case wire.CodeNotLeader:
		return &errs.Error{Kind: errs.KindRejected, Err: &errs.NotLeader{},
			Msg: what + ": the peer does not lead this queue (NOT_LEADER)"}
	}
	return errs.New(errs.KindTransport, "%s: stream ended with code %s", what, wire.AppCode(code))
}

// errWriteAfterFinish is a local stream's answer to a write after its FIN;
// the stream types never make one.
var errWriteAfterFinish = errors.New("write after the stream was finished")

// lossError classifies a connection-level error into ConnectionLost with its
// cause, or a more specific kind (negotiation, protocol, limits).
func lossError(err error) *errs.Error {
	var appErr *quic.ApplicationError
	var idle *quic.IdleTimeoutError
	var reset *quic.StatelessResetError
	var hsTimeout *quic.HandshakeTimeoutError
	var tErr *quic.TransportError
	var classified *errs.Error
	switch {
	case errors.As(err, &classified):
		return classified
	case errors.As(err, &appErr):
		cause := errs.CausePeerClosed
		who := "the peer closed the connection"
		if !appErr.Remote {
			cause, who = errs.CauseLocallyClosed, "the connection was closed locally"
		}
		reason := ""
		if appErr.ErrorMessage != "" {
			reason = ": " + appErr.ErrorMessage
			if appErr.Remote {
				// The reason is in the peer's words ("we" is the peer).
				reason = "; the peer said: " + appErr.ErrorMessage
			}
		}
		code := wire.AppCode(appErr.ErrorCode)
		kind := errs.KindConnectionLost
		switch code {
		case wire.CodeNegotiationFailed:
			kind = errs.KindNegotiation
		case wire.CodeProtocolViolation:
			kind = errs.KindProtocol
		case wire.CodeLimitExceeded:
			kind = errs.KindLimitExceeded
		}
		e := errs.New(kind, "%s (%s)%s", who, code, reason)
		e.Cause, e.Err = cause, err
		if code == wire.CodeNotLeader && appErr.Remote {
			e.Err = &errs.NotLeader{Err: err} // a cluster node lost the queue's leadership
		}
		return e
	case errors.As(err, &idle):
		return &errs.Error{Kind: errs.KindConnectionLost, Cause: errs.CauseIdleTimeout, Err: err,
			Msg: "connection lost: the peer was silent past the idle timeout"}
	case errors.As(err, &hsTimeout):
		return &errs.Error{Kind: errs.KindNotConnected, Cause: errs.CauseIdleTimeout, Err: err,
			Msg: "no QUIC handshake completed: nothing answered"}
	case errors.As(err, &reset):
		return &errs.Error{Kind: errs.KindConnectionLost, Cause: errs.CauseReset, Err: err,
			Msg: "connection lost: the peer reset it (stateless reset)"}
	case errors.As(err, &tErr) && tErr.ErrorCode.IsCryptoError():
		// In TLS 1.3 a client finishes its half of the handshake before the
		// server judges its certificate, so a refusal arrives as an alert
		// after the dial returned: it is a TLS failure, not a lost connection.
		who := "the peer"
		if !tErr.Remote {
			who = "this side"
		}
		return &errs.Error{Kind: errs.KindTLS, Cause: errs.CauseTransportError, Err: err,
			Msg: fmt.Sprintf("TLS handshake refused by %s: %v", who, tErr)}
	case errors.As(err, &tErr):
		return &errs.Error{Kind: errs.KindConnectionLost, Cause: errs.CauseTransportError, Err: err,
			Msg: fmt.Sprintf("connection lost: transport error: %v", tErr)}
	case errors.Is(err, quic.ErrServerClosed), errors.Is(err, quic.ErrTransportClosed):
		return &errs.Error{Kind: errs.KindConnectionLost, Cause: errs.CauseLocallyClosed, Err: err,
			Msg: "connection lost: closed locally"}
	}
	return &errs.Error{Kind: errs.KindConnectionLost, Cause: errs.CauseTransportError, Err: err,
		Msg: "connection lost: " + err.Error()}
}

// writeError maps an error from writing a stream half.
func writeError(err error) error {
	if err == nil {
		return nil
	}
	var se *quic.StreamError
	if errors.As(err, &se) {
		if se.Remote {
			return stopSendingError(uint64(se.ErrorCode))
		}
		return errCanceledLocally()
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return errs.Wrap(errs.KindCanceled, err, "write abandoned")
	}
	return lossError(err)
}

// errCanceledLocally is a transfer's write after this side canceled it.
func errCanceledLocally() error {
	return errs.New(errs.KindCanceled, "the transfer was canceled locally")
}

// readError maps an error from reading a stream half; io.EOF passes through.
func readError(err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	var se *quic.StreamError
	if errors.As(err, &se) {
		if se.Remote {
			return refusalError(uint64(se.ErrorCode), "the sender reset the stream")
		}
		return errs.New(errs.KindCanceled, "the read was canceled locally")
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return errs.Wrap(errs.KindCanceled, err, "read abandoned")
	}
	return lossError(err)
}
