package broker

import (
	"context"
	"crypto/sha256"
	"errors"
	"hash"
	"io"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker/cluster"
)

// raftKeeper keeps a replicated queue's messages in its Raft group
// (docs/CLUSTER.md §2): an admission is an ADMIT entry, committed before
// it is certified; a delivery is a DELIVER entry, committed before its
// first byte goes out, so a leader that lost its quorum delivers nothing;
// a settlement is a SETTLE entry, batched. Bodies of at most 4 KiB travel
// in the ADMIT; larger ones live in the group's payload store, by digest.
type raftKeeper struct {
	g       *cluster.Group
	batch   *proposalBatcher // inline ADMITs and DELIVERs, group-committed
	settles *settleBatcher
}

func newRaftKeeper(g *cluster.Group, onError func(error)) *raftKeeper {
	return &raftKeeper{g: g, batch: newProposalBatcher(g), settles: newSettleBatcher(g, onError)}
}

// certificate is Replicated: admit returns once the ADMIT is committed,
// which is when it is Accepted, Stored at the leader's durability and
// held by a quorum (docs/CLUSTER.md §3).
func (*raftKeeper) certificate() uint64 { return weida.Replicated }

func (k *raftKeeper) newBody() (bodySink, error) {
	return &replicaSink{k: k, hash: sha256.New()}, nil
}

// admit proposes m's ADMIT and waits for its commit; the log numbers it.
// On a node that does not lead the queue it fails with a
// *cluster.NotLeaderError; when leadership was lost meanwhile, with
// cluster.ErrIndeterminate (the next leader may still commit it).
func (k *raftKeeper) admit(s bodySink, m *message) error {
	sink := s.(*replicaSink)
	e := cluster.Entry{Kind: cluster.EntryAdmit, Length: sink.n}
	meta := storeMeta(m.meta)
	e.Topic, e.ContentType = optional(meta.Topic, meta.HasTopic), optional(meta.ContentType, meta.HasContentType)
	e.Traceparent, e.Tracestate = optional(meta.Traceparent, meta.HasTraceparent), optional(meta.Tracestate, meta.HasTracestate)
	if sink.large != nil {
		digest, _, err := sink.large.Commit()
		sink.large = nil
		if err != nil {
			return err
		}
		m.digest = digest
	} else {
		copy(m.digest[:], sink.hash.Sum(nil))
		e.Body = sink.inline
		m.body = memBody{sink.inline}
	}
	e.Digest = m.digest[:]
	var res any
	var err error
	if e.Length > cluster.MaxInlineBody {
		res, err = k.g.Propose(context.Background(), e) // its body is held by its own log index
	} else {
		res, err = k.batch.propose(e)
	}
	if err != nil {
		if len(e.Body) == 0 && m.bodyLen > cluster.MaxInlineBody && !indeterminate(err) {
			k.g.Payloads().Release(m.digest) // never in the log: its pin goes
		}
		return err
	}
	m.id = res.(cluster.AdmitResult).Seq
	if lm, ok := k.g.FSM.Live(m.id); ok && lm.Inline() {
		m.body = memBody{lm.Body} // the FSM's copy: one per member, not two on the leader
	}
	return nil
}

func optional(v []byte, has bool) *string {
	if !has {
		return nil
	}
	s := string(v)
	return &s
}

// open reads m's body: inline bodies from memory, larger ones from the
// group's payload store, verified against their digest as they stream.
func (k *raftKeeper) open(m *message) (io.ReadCloser, error) {
	if m.bodyLen <= cluster.MaxInlineBody {
		return io.NopCloser(m.body.reader()), nil
	}
	return k.g.Payloads().Open(m.digest)
}

// commitDelivery commits a DELIVER of m at attempt before its bytes go
// out: a deposed or minority leader cannot commit it, so it cannot
// deliver, and the next leader counts attempts from what was committed.
// It waits for the commit even when ctx ends: a DELIVER handed to Raft
// cannot be withdrawn, and one that commits only over-counts attempts.
func (k *raftKeeper) commitDelivery(_ context.Context, m *message, attempt uint64) error {
	_, err := k.batch.propose(cluster.Entry{Kind: cluster.EntryDeliver, Seq: m.id, Attempt: attempt})
	return err
}

func (k *raftKeeper) settle(m *message) error { k.settles.add(m.id); return nil }

// attempted has nothing to record: commitDelivery did, before the write.
func (*raftKeeper) attempted(*message) error { return nil }

// quarantine takes m out of every member's live set with a SETTLE.
func (k *raftKeeper) quarantine(m *message, _ string) error {
	_, err := k.g.Propose(context.Background(), cluster.Entry{Kind: cluster.EntrySettle, Seqs: []uint64{m.id}})
	return err
}

// withdraw is never asked of a replicated queue: a committed ADMIT cannot
// be unmade, so the queue holds whatever it admitted (queue.stored).
func (*raftKeeper) withdraw(*message) {}

func (k *raftKeeper) close() error { k.settles.close(); return nil }

// replicaSink receives one body: in memory while it fits an ADMIT entry,
// then streamed into the group's payload store.
type replicaSink struct {
	k      *raftKeeper
	hash   hash.Hash
	inline []byte
	large  *cluster.PayloadBody
	n      uint64
}

func (s *replicaSink) Write(p []byte) (int, error) {
	if s.large == nil && len(s.inline)+len(p) <= cluster.MaxInlineBody {
		s.inline = append(s.inline, p...)
		s.hash.Write(p)
		s.n += uint64(len(p))
		return len(p), nil
	}
	if s.large == nil {
		b, err := s.k.g.Payloads().NewBody()
		if err != nil {
			return 0, err
		}
		s.large = b
		if _, err := b.Write(s.inline); err != nil {
			return 0, err
		}
		s.inline = nil
	}
	n, err := s.large.Write(p)
	s.n += uint64(n)
	return n, err
}

func (s *replicaSink) abort() {
	if s.large != nil {
		s.large.Abort()
	}
	s.inline = nil
}

// notLeader reports whether err says this node does not lead the queue,
// and the hint it carries.
func notLeader(err error) (*cluster.NotLeaderError, bool) {
	var nl *cluster.NotLeaderError
	ok := errors.As(err, &nl)
	return nl, ok
}

// indeterminate reports whether err leaves an admission's fate to the
// next leader.
func indeterminate(err error) bool { return errors.Is(err, cluster.ErrIndeterminate) }
