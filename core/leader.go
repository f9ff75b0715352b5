package weida

import (
	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// The server side of reaching a replicated queue's leader (PROTOCOL.md
// §10): what a cluster node that does not lead a queue answers its
// producers and consumers, and the reserved leader query. The node decides
// who leads; these only put its answer on the wire.

// LeaderPath is the reserved endpoint of the leader query: an exchange
// whose request payload is a queue path, answered with AnswerLeader,
// RefuseNotLeader("", term) while no leader is known, or
// RefuseUnknownEndpoint for a path that is not a replicated queue. It has
// no leading "/", so no user endpoint can claim it; LeaderPort serves it.
const LeaderPath = wire.LeaderPath

// NotLeaderError is the detail errors.As finds in a refusal by a cluster
// node that does not lead the queue (see errs.NotLeader).
type NotLeaderError = errs.NotLeader

// CapLeaderURL bounds a leader URL on the wire (ERROR key 1 and the leader
// query's answer); a longer one is refused by the decoder.
const CapLeaderURL = wire.CapLeader

// LeaderPort registers the reserved path LeaderPath as a QueuePort, for a
// cluster node to answer leader queries. Its owner answers each
// PortExchange and refuses anything else it is handed (PortTransfer:
// Transfer.Close); control events at the path may be ignored. A second
// call fails AlreadyRegistered, as a second registration of any path does.
func (l *Listener) LeaderPort() (*QueuePort, error) {
	p := l.newQueuePort(LeaderPath)
	if err := l.claim(LeaderPath, portRoute{p}); err != nil {
		return nil, err
	}
	return p, nil
}

// LeaderPort registers LeaderPath on the binding's listener.
func (b *Binding) LeaderPort() (*QueuePort, error) { return b.rt.listener.LeaderPort() }

// RefuseNotLeader answers a producer's exchange with ERROR NOT_LEADER
// {0: 6, 1: leader, 2: term} (key 1 left out when leader is "": no leader
// is known) and stops the request half with NOT_LEADER (10), unread.
// leader is the leader's client URL with the queue path, at most
// CapLeaderURL bytes. A second answer fails with NoReply.
func (e *IncomingExchange) RefuseNotLeader(leader string, term uint64) error {
	if len(leader) > CapLeaderURL {
		return errs.New(errs.KindRuntime, "refuse: the leader URL is %d bytes, at most %d fit ERROR key 1", len(leader), CapLeaderURL)
	}
	f := wire.ErrorFrame{Code: wire.ErrorNotLeader, Term: wire.Some(term)}
	if leader != "" {
		f.Leader = wire.Some(leader)
	}
	if !e.ex.ReplyErrorFrame(&f) {
		return errs.New(errs.KindNoReply, "the exchange was already answered")
	}
	e.req.in.Refuse(wire.CodeNotLeader)
	return nil
}

// RefuseUnknownEndpoint answers with ERROR UNKNOWN_ENDPOINT and stops the
// request half, as ordinary dispatch refuses an unregistered path: the
// leader query's answer for a path that is not a replicated queue.
func (e *IncomingExchange) RefuseUnknownEndpoint() error {
	if !e.ex.ReplyError(wire.ErrorUnknownEndpoint) {
		return errs.New(errs.KindNoReply, "the exchange was already answered")
	}
	e.req.in.Refuse(wire.CodeUnknownEndpoint)
	return nil
}

// AnswerLeader answers a leader query with the CBOR payload
// {0: leader, 1: term} and FIN. Read the request (the queue path) first.
func (e *IncomingExchange) AnswerLeader(leader string, term uint64) error {
	if len(leader) > CapLeaderURL {
		return errs.New(errs.KindRuntime, "answer: the leader URL is %d bytes, at most %d fit", len(leader), CapLeaderURL)
	}
	a := wire.LeaderAnswer{Leader: leader, Term: term}
	out, err := e.Reply(TransferMeta{})
	if err != nil {
		return err
	}
	if _, err := out.Write(a.AppendHeader(nil)); err != nil {
		out.Cancel()
		return err
	}
	_, err = out.Finish()
	return err
}

// RefuseNotLeader stops a one-way transfer to a replicated queue this node
// does not lead with NOT_LEADER (10), nothing read: the producer's writes
// fail Rejected, with a NotLeaderError that names no leader.
func (t *IncomingTransfer) RefuseNotLeader() error {
	t.in.Refuse(wire.CodeNotLeader)
	return nil
}

// SetLeaderGate has leads judge every later SUBSCRIBE and CREDIT for the
// port's path: while it returns false they are stopped with NOT_LEADER
// (10), before the subscribe gate, and no event is posted. leads runs on
// the stream's goroutine and must not block; nil removes it.
func (p *QueuePort) SetLeaderGate(leads func() bool) {
	if leads == nil {
		p.leader.Store(nil)
		return
	}
	p.leader.Store(&leads)
}

// leads is the leader gate's verdict (true without a gate).
func (p *QueuePort) leads() bool {
	g := p.leader.Load()
	return g == nil || (*g)()
}

// CloseNotLeader closes the connection with NOT_LEADER (10): this node lost
// the leadership of a queue the connection produced to or consumed from.
// The peer redials and finds the new leader. It does not wait.
func (pc PortConn) CloseNotLeader() {
	if pc.c != nil {
		pc.c.CloseAsync(wire.CodeNotLeader, "this node no longer leads the queue")
	}
}

// JudgeCredit implements transport.CreditJudge: a queue port whose leader
// gate says this node does not lead stops a CREDIT for its path.
func (rt router) JudgeCredit(_ *transport.Conn, cr *wire.Credit) wire.AppCode {
	if r, ok := rt.l.lookup(cr.Endpoint).(portRoute); ok && !r.p.leads() {
		return wire.CodeNotLeader
	}
	return 0
}
