package weida

import (
	"sync"
	"time"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
)

// segmentHub is a segment sender's state: a Radio's toward its dishes, a
// Peer's toward the paths it dialled. Its mutex guards it and every copy of
// its segments, so a write, a supersession and a writer's progress never
// interleave.
type segmentHub struct {
	budget int64 // payload bytes queued per receiving connection (subscriber_buffer_bytes)

	mu      sync.Mutex
	closed  bool
	topics  map[topicScope]*topicState
	links   map[*transport.Conn]*dishLink
	dropped uint64 // whole segments lost, over every receiver there ever was
}

// topicScope is what segments are numbered in: a topic at a radio (one
// numbering for every dish), a (connection, topic) at a Peer.
type topicScope struct {
	c     *transport.Conn // nil at a radio
	topic string
}

// topicState numbers a scope's segments and keeps the ones whose copies a
// successor may still have to reset.
type topicState struct {
	next uint64
	live []*Segment // oldest first; followers of upstream, then the newest
}

// dishLink is the sender's state for one receiving connection.
type dishLink struct {
	c      *transport.Conn
	queued int64 // payload bytes queued over all its copies
	drops  DishDrops
	flows  map[string]*transport.OutFlow // datagram segments, one flow per topic
}

func newSegmentHub(budget int64) segmentHub {
	return segmentHub{budget: budget, topics: make(map[topicScope]*topicState), links: make(map[*transport.Conn]*dishLink)}
}

// open opens the next segment of scope toward targets, addressed to path.
// Opening it supersedes the older copies still in flight in the scope.
func (h *segmentHub) open(scope topicScope, path string, targets []dishTarget, opts SegmentOptions) (*Segment, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, errSegmentsClosed()
	}
	tp := h.topicLocked(scope)
	s := &Segment{hub: h, scope: scope, path: path, number: tp.next, opts: opts}
	tp.next++
	h.supersedeLocked(tp)
	for _, t := range targets {
		cp := &segmentCopy{seg: s, link: h.linkLocked(t.c), ceiling: t.maxLayer}
		if age := smallerAge(opts.MaxAge, t.maxAge); age > 0 {
			cp.expiry = time.AfterFunc(age, cp.expire)
		}
		s.copies = append(s.copies, cp)
	}
	tp.live = append(tp.live, s)
	return s, nil
}

func (h *segmentHub) topicLocked(scope topicScope) *topicState {
	tp := h.topics[scope]
	if tp == nil {
		tp = &topicState{}
		h.topics[scope] = tp
	}
	return tp
}

func (h *segmentHub) linkLocked(c *transport.Conn) *dishLink {
	link := h.links[c]
	if link == nil {
		link = &dishLink{c: c}
		link.drops.Peer, link.drops.HasPeer = c.Peer()
		link.drops.Addr = c.RemoteAddr()
		h.links[c] = link
	}
	return link
}

// dropLocked counts one loss for link.
func (h *segmentHub) dropLocked(link *dishLink, cause dishDropCause) {
	link.drops.count(cause)
	if cause != dropLayersCut {
		h.dropped++
	}
}

// supersedeLocked applies a new segment in tp to the older ones: each copy
// still being written is reset, each finished one gets its grace. A
// segment that follows upstream is kept until a successor needs its room.
func (h *segmentHub) supersedeLocked(tp *topicState) {
	kept := tp.live[:0]
	for _, old := range tp.live {
		if old.opts.FollowsUpstream && !old.settledLocked() {
			kept = append(kept, old)
			continue
		}
		for _, cp := range old.copies {
			cp.supersedeLocked()
		}
	}
	clear(tp.live[len(kept):])
	tp.live = kept
}

// cutFollowedLocked resets link's copies of the segments in s's scope that
// were kept alive by FollowsUpstream: s must write and has no room.
func (h *segmentHub) cutFollowedLocked(s *Segment, link *dishLink) {
	for _, old := range h.topics[s.scope].live {
		if old == s || !old.opts.FollowsUpstream {
			continue
		}
		for _, cp := range old.copies {
			if cp.link == link && !cp.lost && !cp.settledLocked() {
				cp.cutFromLocked(0, dropSuperseded)
			}
		}
	}
}

// connGone forgets a receiving connection that ended: its copies are reset
// so their writers end now, and its numbering scopes go with it.
func (h *segmentHub) connGone(c *transport.Conn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	link := h.links[c]
	delete(h.links, c)
	for scope, tp := range h.topics {
		if scope.c == c && scope.c != nil {
			delete(h.topics, scope)
		}
		for _, seg := range tp.live {
			for _, cp := range seg.copies {
				if cp.link == link {
					cp.abandonLocked()
				}
			}
		}
	}
}

// forgetEnded drops the state of connections that ended (a Peer learns of
// it only here: its connections are not watched by the hub).
func (h *segmentHub) forgetEnded() {
	h.mu.Lock()
	var ended []*transport.Conn
	for c := range h.links {
		if c.Err() != nil {
			ended = append(ended, c)
		}
	}
	h.mu.Unlock()
	for _, c := range ended {
		h.connGone(c)
	}
}

// dishDrops lists each receiving connection's losses by cause.
func (h *segmentHub) dishDrops() []DishDrops {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]DishDrops, 0, len(h.links))
	for _, link := range h.links {
		out = append(out, link.drops)
	}
	return out
}

// shut resets every copy still in flight and closes the datagram flows.
func (h *segmentHub) shut() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.closed = true
	for _, tp := range h.topics {
		for _, seg := range tp.live {
			for _, cp := range seg.copies {
				cp.abandonLocked()
			}
		}
		tp.live = nil
	}
	for _, link := range h.links {
		for _, f := range link.flows {
			f.Close()
		}
		link.flows = nil
	}
}

func errSegmentsClosed() error { return errs.New(errs.KindCanceled, "the segment sender was closed") }
