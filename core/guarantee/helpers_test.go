package guarantee

import (
	"testing"

	"github.com/weida-go/weida/core/errs"
)

// wantRefusal checks that err is this package's configuration error with
// exactly the sentence want; want "" means err must be nil.
func wantRefusal(t *testing.T, what string, err error, want string) {
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
	if kind := errs.KindOf(err); kind != errs.KindRuntime {
		t.Errorf("%s: error kind %v, want Runtime", what, kind)
	}
	if err.Error() != want {
		t.Errorf("%s: error\n  got  %q\n  want %q", what, err, want)
	}
}
