package wire

// ERROR (kind 2, PROTOCOL.md §10.1): the failure answer on a reply half.
// NOT_LEADER (code 6) adds where the leader is: key 1, its client URL with
// the queue path, and key 2, the Raft term that named it. Any code may carry
// them; a v0 decoder that predates them skips them as unknown keys.

var errorKeys = []string{"code", "leader", "term"}

// AppendHeader appends the ERROR map {0: code, 1: leader?, 2: term?}.
func (e *ErrorFrame) AppendHeader(b []byte) []byte {
	b = appendHead(b, majorMap, 1+count1(e.Leader.Ok)+count1(e.Term.Ok))
	b = appendUintKey(b, 0, e.Code)
	if e.Leader.Ok {
		b = appendTextKey(b, 1, e.Leader.V)
	}
	if e.Term.Ok {
		b = appendUintKey(b, 2, e.Term.V)
	}
	return b
}

// DecodeError decodes an ERROR header. Key 0 is required; any code decodes,
// since an unknown code is a generic failure of the exchange, not a
// framing violation. A leader longer than CapLeader is a violation.
func DecodeError(hdr []byte) (ErrorFrame, error) {
	var e ErrorFrame
	var leader textSpan
	r := reader{buf: hdr}
	m, err := openHeader(&r, "ERROR", errorKeys)
	if err != nil {
		return ErrorFrame{}, err
	}
	err = m.walk(&r, 1, func(key uint64) (err error) {
		switch key {
		case 0:
			e.Code, err = r.uint()
		case 1:
			leader, err = r.textSpan(CapLeader)
			e.Leader.Ok = true
		case 2:
			e.Term, err = optUint(&r)
		default:
			err = r.skip()
		}
		return err
	})
	if err != nil {
		return ErrorFrame{}, err
	}
	if e.Leader.Ok {
		e.Leader.V = string(hdr[leader.off : leader.off+leader.n])
	}
	return e, nil
}

// LeaderAnswer is the reply payload of the leader query (the reserved
// endpoint LeaderPath): the CBOR map {0: leader URL, 1: term}, both required.
type LeaderAnswer struct {
	Leader string // key 0, <= CapLeader bytes
	Term   uint64 // key 1
}

// LeaderPath is the reserved endpoint a cluster node answers the leader
// query at. It has no leading "/", so no user endpoint can claim it.
const LeaderPath = ".weida/leader"

var leaderAnswerKeys = []string{"leader", "term"}

// AppendHeader appends the answer's map. (It is a payload, not a frame
// header, but it follows the header rules so one decoder style serves it.)
func (a *LeaderAnswer) AppendHeader(b []byte) []byte {
	b = appendHead(b, majorMap, 2)
	b = appendTextKey(b, 0, a.Leader)
	return appendUintKey(b, 1, a.Term)
}

// DecodeLeaderAnswer decodes a leader query's reply payload.
func DecodeLeaderAnswer(payload []byte) (LeaderAnswer, error) {
	var a LeaderAnswer
	var leader textSpan
	r := reader{buf: payload}
	m, err := openHeader(&r, "leader answer", leaderAnswerKeys)
	if err != nil {
		return LeaderAnswer{}, err
	}
	err = m.walk(&r, 2, func(key uint64) (err error) {
		switch key {
		case 0:
			leader, err = r.textSpan(CapLeader)
		case 1:
			a.Term, err = r.uint()
		default:
			err = r.skip()
		}
		return err
	})
	if err != nil {
		return LeaderAnswer{}, err
	}
	a.Leader = string(payload[leader.off : leader.off+leader.n])
	return a, nil
}
