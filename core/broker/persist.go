package broker

import (
	"context"
	"errors"
	"io"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker/store"
)

// openedKeeper is a queue's keeper and what it recovered; unserved is why
// the store refused to open the queue (its keeper is then an
// unservedKeeper), nil when it serves.
type openedKeeper struct {
	keeper    keeper
	recovered []*message
	unserved  error
}

// openKeepers makes every queue's keeper, in configuration order. When a
// queue is Written or Flushed it opens the store in cfg.DataDir first, and
// recovers each such queue before its path is registered (BROKER.md §13.3
// step 7). A data directory that cannot be used fails here, with the
// store's error naming the file, and on failure nothing stays open; a
// queue whose own data is corrupt is left unserved (unservedKeeper) and
// the others open.
func openKeepers(cfg Config) (_ []openedKeeper, _ io.Closer, err error) {
	keepers := make([]openedKeeper, len(cfg.Queues))
	var s *store.Store
	defer func() {
		if err == nil {
			return
		}
		for _, k := range keepers {
			if k.keeper != nil {
				_ = k.keeper.close()
			}
		}
		if s != nil {
			_ = s.Close()
		}
	}()
	for i, qc := range cfg.Queues {
		if qc.replicated() {
			continue // its group keeps it (New opens the cluster node)
		}
		if qc.Durability == Memory {
			keepers[i] = openedKeeper{keeper: &memKeeper{}}
			continue
		}
		if s == nil {
			if s, err = store.Open(cfg.DataDir, store.Options{SegmentBytes: cfg.SegmentBytes, FS: cfg.storeFS}); err != nil {
				return nil, nil, err
			}
		}
		sq, msgs, qerr := s.OpenQueue([]byte(qc.Path), storeDurability(qc.Durability))
		if errors.Is(qerr, store.ErrCorrupt) {
			keepers[i] = openedKeeper{keeper: unservedKeeper{qerr}, unserved: qerr}
			continue
		}
		if qerr != nil {
			return nil, nil, qerr
		}
		keepers[i] = openedKeeper{keeper: &storeKeeper{q: sq}, recovered: recoveredMessages(msgs)}
	}
	if s == nil {
		return keepers, nil, nil
	}
	return keepers, s, nil
}

func storeDurability(d Durability) store.Durability {
	if d == Flushed {
		return store.Flushed
	}
	return store.Written
}

// recoveredMessages makes the store's live messages ready again, in their
// order, with the attempts that reached the journal. Their producers'
// reports did not survive (no connection does), so nothing is relayed
// for them.
func recoveredMessages(msgs []store.Message) []*message {
	out := make([]*message, len(msgs))
	for i, sm := range msgs {
		m := &message{id: sm.Seq, bodyLen: sm.BodyLen, attempts: sm.Attempts, meta: transferMetaOf(sm.Meta)}
		m.charge = int64(PerMessageOverhead+len(m.meta.Topic)+len(m.meta.ContentType)) + int64(sm.BodyLen)
		out[i] = m
	}
	return out
}

// recover puts recovered messages back, in their order, charged again.
func (q *queue) recover(msgs []*message) {
	for _, m := range msgs {
		q.budget.used.Add(m.charge)
		q.ready = append(q.ready, m)
	}
}

// storeKeeper keeps a queue's bodies in the store at the queue's
// durability: a body streams to disk as it arrives and is never held
// whole in memory.
type storeKeeper struct{ q *store.Queue }

// certificate is Stored: Admit returns only once the body and its commit
// record are written (Written) or fsynced (Flushed), so Stored is never
// reported before the commit record exists (O-10). Level 3 cannot say which
// durability; the queue's configuration does (O-1).
func (*storeKeeper) certificate() uint64 { return weida.Stored }

func (k *storeKeeper) newBody() (bodySink, error) {
	b, err := k.q.NewBody()
	if err != nil {
		return nil, err
	}
	return storeSink{b}, nil
}

func (k *storeKeeper) admit(s bodySink, m *message) error {
	sm, err := k.q.Admit(s.(storeSink).b, storeMeta(m.meta))
	if err != nil && !errors.Is(err, store.ErrNotDurable) {
		return err
	}
	m.id = sm.Seq // recorded, durable or not
	return err
}

// recorded: an admit that failed this way left its message in the store,
// where a restart may find it (its ADMIT was written, its fsync failed).
func recorded(err error) bool { return errors.Is(err, store.ErrNotDurable) }

func (k *storeKeeper) open(m *message) (io.ReadCloser, error) { return k.q.OpenBody(m.id) }
func (k *storeKeeper) settle(m *message) error                { return k.q.Settle(m.id) }
func (k *storeKeeper) attempted(m *message) error             { return k.q.Attempt(m.id, m.attempts) }

// commitDelivery has nothing to do before the write: attempted records the
// count after it (§9), and a lost ATTEMPT only lowers a label.
func (*storeKeeper) commitDelivery(context.Context, *message, uint64) error { return nil }
func (k *storeKeeper) withdraw(m *message)                                  { _ = k.q.Settle(m.id) }
func (k *storeKeeper) quarantine(m *message, reason string) error {
	return k.q.Quarantine(m.id, reason)
}
func (k *storeKeeper) close() error { return k.q.Close() }

// storeSink is a body streaming into the store.
type storeSink struct{ b *store.Body }

func (s storeSink) Write(p []byte) (int, error) { return s.b.Write(p) }
func (s storeSink) abort()                      { s.b.Abort() }

// storeMeta is what the store records of a message's header.
func storeMeta(m weida.TransferMeta) store.Meta {
	var sm store.Meta
	set := func(dst *[]byte, has *bool, v string) {
		if v != "" {
			*dst, *has = []byte(v), true
		}
	}
	set(&sm.Topic, &sm.HasTopic, m.Topic)
	set(&sm.ContentType, &sm.HasContentType, m.ContentType)
	set(&sm.Traceparent, &sm.HasTraceparent, m.Traceparent)
	set(&sm.Tracestate, &sm.HasTracestate, m.Tracestate)
	return sm
}

// transferMetaOf is storeMeta's inverse.
func transferMetaOf(sm store.Meta) weida.TransferMeta {
	return weida.TransferMeta{Topic: string(sm.Topic), ContentType: string(sm.ContentType),
		Traceparent: string(sm.Traceparent), Tracestate: string(sm.Tracestate)}
}
