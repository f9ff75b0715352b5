package weida

import "github.com/weida-go/weida/core/wire"

// A Requester's or Replier's work under a context that can end is abandoned
// when it ends, through the endpoint's ctxwatch.Set (core/internal/ctxwatch):
// these adapters say what abandoning means for each piece of work.

// refuseOnEnd is a request being read: abandoning it refuses the rest
// (STOP_SENDING REJECTED).
type refuseOnEnd IncomingTransfer

func (t *refuseOnEnd) Abandon() { t.in.Refuse(wire.CodeRejected) }

// cancelOnEnd is a reply being written: abandoning it resets the stream
// unless its FIN is already queued (the reply got out whole).
type cancelOnEnd OutgoingTransfer

func (t *cancelOnEnd) Abandon() { (*OutgoingTransfer)(t).cancelUnfinished() }
