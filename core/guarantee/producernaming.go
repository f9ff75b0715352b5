package guarantee

// ProducerNaming is how a transfer's producer is named for ordering and
// deduplication: by the proved fingerprint of the sending peer, or by a stable
// name an L2 supplier assigns. Not ordered: two sets must state the same one.
type ProducerNaming uint8

// The producer naming schemes. NamingFingerprint is the zero value and the core level.
const (
	// NamingFingerprint names the producer by the connection peer's proved fingerprint.
	NamingFingerprint ProducerNaming = iota
	// NamingStable names the producer by a name that outlives connections; needs an L2 supplier.
	NamingStable
)

var producerNamingNames = []string{
	NamingFingerprint: "Fingerprint",
	NamingStable:      "Stable",
}

// String returns the spec's name of the scheme, e.g. "Fingerprint".
func (p ProducerNaming) String() string {
	return levelName(p, producerNamingNames, "ProducerNaming")
}
