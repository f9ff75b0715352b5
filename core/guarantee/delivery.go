package guarantee

// Delivery is how many times a message may reach the next hop's application.
// It is a ladder: BestEffort < AtMostOnce < AtLeastOnce. Exactly-once is never
// promised by weida, so it has no level.
type Delivery uint8

// The delivery levels. BestEffort is the zero value and the core level.
const (
	// BestEffort promises nothing beyond trying once; v0 never retries.
	BestEffort Delivery = iota
	// AtMostOnce never delivers a message twice, and may lose it.
	AtMostOnce
	// AtLeastOnce never loses a message the sender was told was taken, and may duplicate it.
	AtLeastOnce
)

var deliveryNames = []string{
	BestEffort:  "BestEffort",
	AtMostOnce:  "AtMostOnce",
	AtLeastOnce: "AtLeastOnce",
}

// String returns the spec's name of the level, e.g. "AtLeastOnce".
func (d Delivery) String() string { return levelName(d, deliveryNames, "Delivery") }

// Rank is d's position in the delivery ladder (BestEffort 0); a higher rank
// is the stronger promise. A value outside the constants ranks -1.
func (d Delivery) Rank() int {
	if !known(d, deliveryNames) {
		return unknownRank
	}
	return int(d)
}
