package wire

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
