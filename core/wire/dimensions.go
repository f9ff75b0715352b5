package wire

import "strconv"

// The dimensions of a guarantee set, numbered as their keys (PROTOCOL.md §8.2).
const (
	dimDelivery = iota
	dimAcknowledgement
	dimDurability
	dimReplicas
	dimOrdering
	dimDeduplication
	dimDedupWindow
	dimBackpressure
	dimProducerNaming
	dimControlIsolated
	dimCount
)

// dimensionNames are the dimension names used in messages and returned by
// Reaches; they double as the key names of the nested guarantee map.
var dimensionNames = []string{
	dimDelivery:        "delivery",
	dimAcknowledgement: "acknowledgement",
	dimDurability:      "durability",
	dimReplicas:        "replicas",
	dimOrdering:        "ordering",
	dimDeduplication:   "deduplication",
	dimDedupWindow:     "dedup_window_ms",
	dimBackpressure:    "backpressure",
	dimProducerNaming:  "producer_naming",
	dimControlIsolated: "control_isolated",
}

// levelNames name the levels of the enumerated dimensions; the length of
// each list is also the dimension's value range. Replicas and the dedup
// window are counts and have no names.
var levelNames = [dimCount][]string{
	dimDelivery:        {"BestEffort", "AtMostOnce", "AtLeastOnce"},
	dimAcknowledgement: {"None", "TransportReceipt", "Accepted", "Stored", "Replicated", "Processed"},
	dimDurability:      {"Written", "Flushed"},
	dimOrdering:        {"None", "PerProducer detect", "PerProducer reassemble", "PerKey", "Total"},
	dimDeduplication:   {"None", "Bounded", "Durable"},
	dimBackpressure:    {"Block", "Reject", "Drop", "Spill", "Coalesce"},
	dimProducerNaming:  {"fingerprint", "stable"},
	dimControlIsolated: {"no", "yes"},
}

// describeLevel renders a level for messages: "1 (PerProducer detect)",
// "3 replicas", "500 ms".
func describeLevel(dim int, v uint64) string {
	s := strconv.FormatUint(v, 10)
	switch dim {
	case dimReplicas:
		return s + " replicas"
	case dimDedupWindow:
		return s + " ms"
	}
	if names := levelNames[dim]; v < uint64(len(names)) {
		return s + " (" + names[v] + ")"
	}
	return s
}

// describeOpt renders an optional level; an absent one is "none".
func describeOpt(dim int, v Opt[uint64]) string {
	if !v.Ok {
		return "none"
	}
	return describeLevel(dim, v.V)
}
