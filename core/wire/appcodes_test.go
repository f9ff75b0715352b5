package wire

import "testing"

func TestAppCodeString(t *testing.T) {
	for code, want := range map[AppCode]string{
		CodeNoError: "NO_ERROR", CodeProtocolViolation: "PROTOCOL_VIOLATION", CodeUnsupported: "UNSUPPORTED", CodeNotLeader: "NOT_LEADER", 11: "APP_CODE_11",
	} {
		if got := code.String(); got != want {
			t.Errorf("AppCode(%d) = %q, want %q", code, got, want)
		}
	}
}
