package wire

// ERROR (kind 2, PROTOCOL.md §10.1): the failure answer on a reply half.
// NOT_LEADER (code 6) adds where the leader is: key 1, its client URL with
// the queue path, and key 2, the Raft term that named it. Any code may carry
// them; a v0 decoder that predates them skips them as unknown keys.

// ErrorFrame is the ERROR header (kind 2, reply half only).
type ErrorFrame struct {
	Code   uint64      // key 0, required: one of the Error* codes below
	Leader Opt[string] // key 1, <= 1024 B: NOT_LEADER's leader URL, when one is known
	Term   Opt[uint64] // key 2: NOT_LEADER's Raft term
}

// ERROR frame codes (ERROR key 0, PROTOCOL.md §10.1). Distinct from AppCode.
const (
	ErrorUnknownEndpoint uint64 = 1
	ErrorRejected        uint64 = 2
	ErrorUnsupported     uint64 = 3
	ErrorInternal        uint64 = 4
	ErrorNoReply         uint64 = 5
	// ErrorNotLeader answers an exchange to a replicated queue on a node
	// that does not lead it; ERROR keys 1 (leader) and 2 (term) say where
	// the leader is, when known.
	ErrorNotLeader uint64 = 6
)

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
