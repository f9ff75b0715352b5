package main

import "testing"

func TestJSONLineFindsTheValueAtAPath(t *testing.T) {
	raw := []byte(`{
  "data": "/var/lib/weida",
  "access": {
    "groups": {"w": ["sha256:aa",
                     "sha256:bb"]},
    "queues": {
      "/jobs": {"produce": ["*"],
                "consume": ["@w",
                            "sha256:12"]}
    }
  }
}`)
	for _, tc := range []struct {
		path []string
		want int
	}{
		{[]string{"data"}, 2},
		{[]string{"access", "groups", "w", "1"}, 5},
		{[]string{"access", "queues", "/jobs"}, 7},
		{[]string{"access", "queues", "/jobs", "consume", "1"}, 9},
		{[]string{"access", "queues", "/nope"}, 0},
		{[]string{"access", "queues", "/jobs", "produce", "3"}, 0},
	} {
		if got := jsonLine(raw, tc.path); got != tc.want {
			t.Errorf("jsonLine(%v) = %d, want %d", tc.path, got, tc.want)
		}
	}
}
