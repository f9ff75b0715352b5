package wire

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

// unhex decodes space-separated hex octets as written in PROTOCOL.md §15.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

// decodeAs decodes hdr as the header of kind k and returns a pointer to the
// decoded value, so it compares directly with a vector's HeaderAppender.
func decodeAs(k Kind, hdr []byte) (HeaderAppender, error) {
	switch k {
	case KindHello:
		h, err := DecodeHello(hdr)
		return &h, err
	case KindData:
		d, err := DecodeData(hdr)
		return &d, err
	case KindError:
		e, err := DecodeError(hdr)
		return &e, err
	case KindSubscribe, KindUnsubscribe:
		s, err := DecodeSubscribe(hdr)
		return &s, err
	case KindCredit:
		c, err := DecodeCredit(hdr)
		return &c, err
	case KindCursor:
		c, err := DecodeCursorHead(hdr)
		return &c, err
	case KindFlow:
		f, err := DecodeFlow(hdr)
		return &f, err
	case KindReport:
		h, err := DecodeReportHead(hdr)
		return &h, err
	}
	panic("decodeAs: undefined kind")
}

// wantViolation fails t unless err is a *ViolationError whose reason
// contains want.
func wantViolation(t testing.TB, err error, want string) {
	t.Helper()
	var v *ViolationError
	if !errors.As(err, &v) || !errors.Is(err, ErrProtocolViolation) {
		t.Fatalf("got error %v, want a violation containing %q", err, want)
	}
	if !strings.Contains(v.Reason, want) {
		t.Fatalf("violation %q does not mention %q", v.Reason, want)
	}
}
