package guarantee

import (
	"testing"

	"github.com/weida-go/weida/core/errs"
)

// wantRefusal checks that err is this package's configuration error with
// exactly the sentence want; want "" means err must be nil.
func wantRefusal(t *testing.T, what string, err error, want string) {
	t.Helper()
	wantRefusalOf(t, errs.KindRuntime, what, err, want)
}

// wantRefusalOf is wantRefusal for an error of kind.
func wantRefusalOf(t *testing.T, kind errs.Kind, what string, err error, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Errorf("%s: unexpected error %q", what, err)
		}
		return
	}
	if err == nil {
		t.Errorf("%s: no error, want %q", what, want)
		return
	}
	if got := errs.KindOf(err); got != kind {
		t.Errorf("%s: error kind %v, want %v", what, got, kind)
	}
	if err.Error() != want {
		t.Errorf("%s: error\n  got  %q\n  want %q", what, err, want)
	}
}
