package main

import (
	"bytes"
	"fmt"
	"net/url"
	"path/filepath"
	"testing"
)

// TestSendReachesASinkOverUnix (SURFACE.md §4.3 item 6): serve --sink on
// weida+unix:// prints the URL exactly as given, and send reaches the sink
// with no fingerprint (the kernel proves the peer).
func TestSendReachesASinkOverUnix(t *testing.T) {
	t.Parallel()
	dir, err := filepath.Abs(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	u := "weida+unix://" + url.PathEscape(filepath.Join(dir, "s.sock")) + "/sink"
	sink := startServe(t, "--sink", u)
	if sink.addr != u {
		t.Fatalf("serve printed %q, want the URL as given, %q", sink.addr, u)
	}
	payload := randomBytes(t, 64<<10)
	written := sink.readStdout(len(payload))
	r := runWeida(t, payload, "send", sink.addr)
	expectOutcome(t, r, exitOK, fmt.Sprintf("delivered bytes=%d\n", len(payload)))
	if got := written.wait(t); !bytes.Equal(got, payload) {
		t.Fatal("the sink wrote other bytes than were sent")
	}
	if code, _, stderr := sink.stop(t); code != exitOK {
		t.Errorf("serve exited %d on SIGTERM, want 0; stderr:\n%s", code, stderr)
	}
}
