package cluster

import (
	"errors"
	"slices"
	"sync"
)

// unansweredFetches remembers the members whose latest fetch got no
// answer (a stall, a failed dial or stream), so later fetches ask them
// last. A leader SIGKILLed while its followers store a batch looks alive
// until its connection times out: a follower fetching the batch's bodies
// would otherwise spend the stall bound on it for every body, a few at a
// time, while its Raft loop waits (issue 19: a follower deaf for 6 s to
// the election after such a kill).
type unansweredFetches struct {
	mu      sync.Mutex
	members map[string]bool // by Raft address
}

// note records how the latest fetch from the member at addr ended: an
// answer (the body, "unknown", "settled") or none.
func (u *unansweredFetches) note(addr string, err error) {
	answered := err == nil || errors.Is(err, errFetchUnknown) || errors.Is(err, errBodySettled)
	u.mu.Lock()
	defer u.mu.Unlock()
	if answered {
		delete(u.members, addr)
		return
	}
	if u.members == nil {
		u.members = map[string]bool{}
	}
	u.members[addr] = true
}

func (u *unansweredFetches) has(addr string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.members[addr]
}

// fetchOrder is whom fetchBody asks, in turn: the leader (it holds every
// body it sends), then the other members in the cluster file's order;
// members whose latest fetch got no answer go last, in the same order.
func fetchOrder(self, leader string, members []Member, unanswered func(addr string) bool) []string {
	order := []string{}
	if leader != "" && leader != self {
		order = append(order, leader)
	}
	for _, m := range members {
		if m.Raft != self && m.Raft != leader {
			order = append(order, m.Raft)
		}
	}
	slices.SortStableFunc(order, func(a, b string) int {
		switch ua, ub := unanswered(a), unanswered(b); {
		case ua == ub:
			return 0
		case ub:
			return -1
		default:
			return 1
		}
	})
	return order
}
