package wire

import "testing"

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{KindHello: "HELLO", KindUnsubscribe: "UNSUBSCRIBE", KindFlow: "FLOW", KindReport: "REPORT", 9: "KIND_9", 255: "KIND_255"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d) = %q, want %q", k, got, want)
		}
	}
}
