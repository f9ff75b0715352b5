package weida

import (
	"time"

	"github.com/weida-go/weida/core/transport"
)

// SeqConnState is one live connection's sequencing state as the tests see
// it: whether the connection has any (a core connection must not), and the
// sizes of its tables. It is no part of the API.
type SeqConnState struct {
	HasState     bool
	Numbered     int // scopes this side numbered
	Scopes       int // scopes the receiver tracks (detect or reassemble)
	Held         int // transfers held for reassembly now
	PeakHeld     int // the most ever held at once
	DedupEntries int // identities the dedup window remembers
}

// SeqStates reports every live connection of rt, accepted and dialled.
func SeqStates(rt *Runtime) []SeqConnState {
	var conns []*transport.Conn
	rt.mu.Lock()
	for b := range rt.bindings {
		conns = append(conns, b.tl.Conns()...)
	}
	for _, pc := range rt.pool {
		conns = append(conns, pc.conn)
	}
	rt.mu.Unlock()
	states := make([]SeqConnState, 0, len(conns))
	for _, c := range conns {
		if c.Err() != nil {
			continue
		}
		states = append(states, seqStateSizes(c))
	}
	return states
}

func seqStateSizes(c *transport.Conn) SeqConnState {
	v, ok := seqConns.Load(c)
	if !ok {
		return SeqConnState{}
	}
	st := v.(*seqConn)
	s := SeqConnState{HasState: true}
	st.sendMu.Lock()
	if st.sender != nil {
		s.Numbered = st.sender.Scopes()
	}
	st.sendMu.Unlock()
	rc := st.recv.Load()
	if rc == nil {
		return s
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	switch {
	case rc.detect != nil:
		s.Scopes = rc.detect.Scopes()
	case rc.reorder != nil:
		s.Scopes, s.Held, s.PeakHeld = rc.reorder.Scopes(), rc.reorder.Held(), rc.reorder.Peak()
	}
	if rc.dedup != nil {
		s.DedupEntries = rc.dedup.Len()
	}
	return s
}

// SetDedupClock makes rt's dedup windows run on now.
func SetDedupClock(rt *Runtime, now func() time.Time) { rt.dedup.now.Store(&now) }
