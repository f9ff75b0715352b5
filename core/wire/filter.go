package wire

import "strings"

// Topic filters (PROTOCOL.md §8.4.1). A topic and a filter are split on '.'
// into segments; "" is one empty segment. In a filter, "*" (a whole
// segment) matches exactly one topic segment and "#" (a whole segment, last
// only) matches zero or more remaining ones; any other segment matches
// itself byte for byte. A topic is never a pattern.

// ValidateFilter checks the filter grammar: no segment may contain '*' or
// '#' unless it is exactly that one byte, and "#" may only be the last
// segment. A breach is a *ViolationError naming the segment.
func ValidateFilter(f string) error {
	for i, rest := 0, f; ; i++ {
		seg, tail, more := strings.Cut(rest, ".")
		switch {
		case seg == "#" && more:
			return violation("filter %q: segment %d: \"#\" is only allowed as the last segment", f, i)
		case seg != "*" && strings.IndexByte(seg, '*') >= 0:
			return violation("filter %q: segment %d %q: '*' must be a whole segment", f, i, seg)
		case seg != "#" && strings.IndexByte(seg, '#') >= 0:
			return violation("filter %q: segment %d %q: '#' must be a whole segment", f, i, seg)
		}
		if !more {
			return nil
		}
		rest = tail
	}
}

// MatchTopic reports whether topic matches filter, in one left-to-right
// pass without allocating. The empty filter and "#" match every topic.
// filter is taken as valid (see ValidateFilter); an invalid one matches as
// the rules above read it.
func MatchTopic(topic, filter string) bool {
	if filter == "" {
		return true
	}
	topicLeft := true // a topic segment remains at the head of topic
	for {
		seg, ftail, fmore := strings.Cut(filter, ".")
		if seg == "#" {
			return true
		}
		if !topicLeft {
			return false
		}
		tseg, ttail, tmore := strings.Cut(topic, ".")
		if seg != "*" && seg != tseg {
			return false
		}
		topic, topicLeft = ttail, tmore
		if !fmore {
			return !topicLeft
		}
		filter = ftail
	}
}
