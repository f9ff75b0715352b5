package broker

import "testing"

func TestParseQueue(t *testing.T) {
	cases := []struct {
		in   string
		want QueueConfig
		ok   bool
	}{
		{"/jobs", QueueConfig{Path: "/jobs"}, true},
		{"/jobs:memory", QueueConfig{Path: "/jobs"}, true},
		{"/jobs:written", QueueConfig{Path: "/jobs", Durability: Written}, true},
		{"/jobs:flushed", QueueConfig{Path: "/jobs", Durability: Flushed}, true},
		{"/a:b:flushed", QueueConfig{Path: "/a:b", Durability: Flushed}, true},
		{"/v1:2", QueueConfig{Path: "/v1:2"}, true},
		{"/jobs:flushd", QueueConfig{}, false},
	}
	for _, c := range cases {
		got, err := ParseQueue(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseQueue(%q) = %+v, %v; want %+v (ok %v)", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestConfigDefaults(t *testing.T) {
	cases := []struct {
		name string
		in   Config
		want Config
	}{
		{"zero is the defaults", Config{}, Config{QueueBytes: DefaultQueueBytes, MaxQueues: DefaultMaxQueues, MaxUnsettled: DefaultMaxUnsettled}},
		{"NeverDeliver is a bound of zero", Config{MaxUnsettled: NeverDeliver}, Config{QueueBytes: DefaultQueueBytes, MaxQueues: DefaultMaxQueues, MaxUnsettled: 0}},
		{"set bounds stay", Config{QueueBytes: 1, MaxQueues: 2, MaxUnsettled: 3}, Config{QueueBytes: 1, MaxQueues: 2, MaxUnsettled: 3}},
	}
	for _, c := range cases {
		got, err := c.in.validated()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.QueueBytes != c.want.QueueBytes || got.MaxQueues != c.want.MaxQueues || got.MaxUnsettled != c.want.MaxUnsettled {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
	for _, s := range []string{"memory", "written", "flushed"} {
		d, err := ParseDurability(s)
		if err != nil || d.String() != s {
			t.Errorf("ParseDurability(%q) = %v, %v", s, d, err)
		}
	}
	if _, err := ParseDurability("durable"); err == nil {
		t.Error("ParseDurability accepted an unknown level")
	}
}
