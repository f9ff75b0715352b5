package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestServeSinkWritesABurstWhole pushes many small messages at once: the
// sink writes each whole (streams may arrive in any order, but no two
// payloads interleave) and reports each once.
func TestServeSinkWritesABurstWhole(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	sink := startServe(t, "--sink", "weida://127.0.0.1:0/sink")
	pusher := connectedPusher(t, ctx, sink.addr)
	const count = 500
	var want bytes.Buffer
	for i := 0; i < count; i++ {
		fmt.Fprintf(&want, "message %03d;", i)
	}
	written := sink.readStdout(want.Len())
	for i := 0; i < count; i++ {
		if err := pusher.Send(ctx, []byte(fmt.Sprintf("message %03d;", i))); err != nil {
			t.Fatal(err)
		}
	}
	if got, sent := pieces(written.wait(t)), pieces(want.Bytes()); !slices.Equal(got, sent) {
		t.Fatalf("the sink wrote %d whole messages of the %d sent, or mixed them", len(got), len(sent))
	}
	code, _, stderr := sink.stop(t)
	if code != exitOK {
		t.Fatalf("serve exited %d; stderr:\n%s", code, stderr)
	}
	if n := strings.Count(stderr, "received bytes=12\n"); n != count {
		t.Errorf("%d transfers reported, want %d; stderr:\n%s", n, count, stderr)
	}
}

// pieces splits a burst's stdout at its separators, sorted.
func pieces(b []byte) []string {
	out := strings.SplitAfter(string(b), ";")
	slices.Sort(out)
	return out
}
