package broker

import (
	"slices"

	"github.com/weida-go/weida/core/wire"
)

// maxCachedTopics bounds the topics whose matching subscriptions are kept
// between changes of the subscription set; past it the cache starts over.
const maxCachedTopics = 4096

// topicMatches remembers, for the subscription set as it stands, which
// subscriptions each topic's filter matches, and which ready messages no
// subscription matches at all. The scan then skips a message nobody can
// ever take with one comparison, and a matched one costs a look-up, not a
// filter match per subscription: without it, messages no filter matched
// made every delivery and every event scan ready × subscriptions filter
// matches (20,000 of them with 100 filters: 15 deliveries a second). It is
// loop-owned.
type topicMatches struct {
	set   []*subscription // the subscription set the cache describes
	gen   uint64          // bumped whenever set changes; never 0
	subs  map[string][]*subscription
	empty []*subscription // reused by subscriptions of an empty set
}

// refresh starts the cache over when the queue's subscriptions changed
// since it was built (compared, not notified: the list is short).
func (tm *topicMatches) refresh(list []*subscription) {
	if tm.gen != 0 && slices.Equal(tm.set, list) && len(tm.subs) < maxCachedTopics {
		return
	}
	tm.set = append(tm.set[:0], list...)
	tm.gen++
	clear(tm.subs)
	if tm.subs == nil {
		tm.subs = make(map[string][]*subscription)
	}
}

// of returns the subscriptions whose filter matches topic, in list order.
func (tm *topicMatches) of(topic string) []*subscription {
	if subs, ok := tm.subs[topic]; ok {
		return subs
	}
	var subs []*subscription
	for _, s := range tm.set {
		if wire.MatchTopic(topic, s.key.filter) {
			subs = append(subs, s)
		}
	}
	tm.subs[topic] = subs
	return subs
}
