package weida

import (
	"context"

	"github.com/weida-go/weida/core/wire"
)

// Segment opens the next segment on topic toward the next live
// connection's path: the uplink of SEMANTICS.md §2.7, one copy, numbered
// from 0 per (connection, topic). It waits only for a live connection, as
// Open does; after that nothing waits: the copy lives within the Peer's
// byte budget (subscriber_buffer_bytes) and is lost, not delayed, without
// room. Opening it supersedes the older segments on the topic and
// connection, unless they follow upstream (SegmentOptions).
func (p *Peer) Segment(ctx context.Context, topic string, opts SegmentOptions) (*Segment, error) {
	if err := checkSegmentTerms(topic, opts); err != nil {
		return nil, err
	}
	c, err := p.d.live(ctx)
	if err != nil {
		return nil, err
	}
	p.segs.forgetEnded()
	return p.segs.open(topicScope{c: c, topic: topic}, c.Path(), []dishTarget{{c: c, maxLayer: wire.MaxLayer}}, opts)
}

// SegmentDrops lists the segment losses of each live connection by cause.
func (p *Peer) SegmentDrops() []DishDrops { return p.segs.dishDrops() }
