package wire

import "testing"

func TestMatchTopic(t *testing.T) {
	for _, v := range []struct {
		topic, filter string
		want          bool
	}{
		{"px.eur", "", true},
		{"", "", true},
		{"px.eur", "#", true},
		{"", "#", true},
		{"px.eur", "px.eur", true},
		{"px.eur", "px.usd", false},
		{"px.eur", "px.*", true},
		{"px.eur", "px.#", true},
		{"px.eur", "px.", false}, // ["px", ""] does not match ["px", "eur"]
		{"px.", "px.", true},
		{"px.", "px.*", true},  // "*" matches an empty segment
		{"px.*", "px.*", true}, // a topic is never a pattern
		{"px.x", "px.\\*", false},
		{"a", "a.#", true}, // "#" matches zero segments
		{"a.b.c", "a.#", true},
		{"b", "a.#", false},
		{"a.b", "a", false},
		{"a", "a.b", false},
		{"a", "a.*", false},
		{"sensors.kitchen.temp", "sensors.*.temp", true},
		{"sensors.kitchen.hum", "sensors.*.temp", false},
		{"sensors.temp", "sensors.*.temp", false},
		{"a..b", "a..b", true},
		{"a..b", "a.*.b", true},
		{"a.b", "*.*", true},
		{"a", "*.*", false},
		{"", "*", true},
		{"", "a", false},
		{"eur", "*.eur", false},
	} {
		if got := MatchTopic(v.topic, v.filter); got != v.want {
			t.Errorf("MatchTopic(%q, %q) = %v, want %v", v.topic, v.filter, got, v.want)
		}
	}
}

func TestMatchTopicAllocatesNothing(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { MatchTopic("sensors.kitchen.temp", "sensors.*.#") }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

func TestValidateFilterNamesTheSegment(t *testing.T) {
	for _, v := range []struct{ filter, want string }{
		{"px*", `segment 0 "px*": '*' must be a whole segment`},
		{"a.b.p*x", `segment 2 "p*x": '*' must be a whole segment`},
		{"a.#x", `segment 1 "#x": '#' must be a whole segment`},
		{"#.px", `segment 0: "#" is only allowed as the last segment`},
		{"a.*#", `segment 1 "*#"`},
	} {
		wantViolation(t, ValidateFilter(v.filter), v.want)
	}
}
