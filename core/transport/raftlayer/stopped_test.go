package raftlayer

import (
	"errors"
	"fmt"
	"testing"

	"github.com/quic-go/quic-go"
)

// Only a peer's own orderly close counts as its shutdown, whether the
// error is QUIC's or only its text (as hashicorp/raft passes it on).
func TestPeerShutDownIsThePeersOrderlyClose(t *testing.T) {
	theirs := &quic.ApplicationError{Remote: true, ErrorCode: closeShutdown, ErrorMessage: shutdownReason}
	ours := &quic.ApplicationError{Remote: false, ErrorCode: closeShutdown, ErrorMessage: shutdownReason}
	refused := &quic.ApplicationError{Remote: true, ErrorCode: closeFileDiffers, ErrorMessage: "cluster file differs"}
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{theirs, true},
		{fmt.Errorf("rpc: %w", theirs), true},
		{fmt.Errorf("failed to make TimeoutNow RPC to x: %v", theirs), true},
		{ours, false},
		{fmt.Errorf("failed: %v", ours), false},
		{refused, false},
		{errors.New("timeout: no recent network activity"), false},
		{nil, false},
	} {
		if got := PeerShutDown(tc.err); got != tc.want {
			t.Errorf("PeerShutDown(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
