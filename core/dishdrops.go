package weida

// DishDrops is what one dish lost at a radio, by cause (SEMANTICS.md
// §2.7). Every count but LayersCut is a whole segment copy (or datagram
// segment) the dish never got; LayersCut counts copies that lost upper
// layers but kept layer 0, once per copy.
type DishDrops struct {
	Peer    Fingerprint // the key the dish proved; valid when HasPeer
	HasPeer bool
	Addr    string // the dish's UDP address, telling anonymous dishes apart

	SubscriberBudget uint64 // no room in the dish's byte budget (subscriber_buffer_bytes)
	SubscriberQueue  uint64 // a layer's 64-chunk queue was full
	Superseded       uint64 // reset because a newer segment on the topic opened
	Expired          uint64 // older than the smaller of the dish's and the sender's max_age
	TooLarge         uint64 // a datagram segment larger than the dish's datagram size
	NoDatagrams      uint64 // a datagram segment for a dish without datagrams (or without a free flow)
	NoParked         uint64 // a datagram segment for a unix dish with no reverse connection parked
	LayersCut        uint64 // copies that lost layers above 0 under pressure
}

// dishDropCause names why a dish lost a segment; DishDrops counts each.
type dishDropCause int

const (
	dropBudget dishDropCause = iota
	dropQueue
	dropSuperseded
	dropExpired
	dropTooLarge
	dropNoDatagrams
	dropNoParked
	dropLayersCut
)

// count adds one loss of cause.
func (d *DishDrops) count(cause dishDropCause) {
	switch cause {
	case dropBudget:
		d.SubscriberBudget++
	case dropQueue:
		d.SubscriberQueue++
	case dropSuperseded:
		d.Superseded++
	case dropExpired:
		d.Expired++
	case dropTooLarge:
		d.TooLarge++
	case dropNoDatagrams:
		d.NoDatagrams++
	case dropNoParked:
		d.NoParked++
	case dropLayersCut:
		d.LayersCut++
	}
}

// total is every whole segment lost (LayersCut is not a loss of the segment).
func (d *DishDrops) total() uint64 {
	return d.SubscriberBudget + d.SubscriberQueue + d.Superseded + d.Expired + d.TooLarge + d.NoDatagrams + d.NoParked
}
