package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	weida "github.com/weida-go/weida/core"
)

// stdinFile is the FILE that means stdin, as Unix tools read it.
const stdinFile = "-"

// pieceSize is how much one Write moves, in both directions: small enough
// that a stream never waits on a whole payload, large enough to be cheap.
const pieceSize = 64 << 10

// optTimeout bounds a dialling verb from start to end.
var optTimeout = option{name: "--timeout", value: "DURATION",
	help: "give up after DURATION (e.g. 500ms, 30s, 2m), connecting included; " +
		"the verb then fails with exit status 1 and names the timeout"}

// readPayload reads the whole payload, from FILE or else stdin, before any
// connection is made (SURFACE.md §1.2): streaming huge payloads is the
// library's job, not the shell tool's.
func readPayload(inv *invocation, con console) ([]byte, error) {
	if inv.file != "" && inv.file != stdinFile {
		payload, err := os.ReadFile(inv.file)
		if err != nil {
			return nil, fmt.Errorf("cannot read the payload: %w", err)
		}
		return payload, nil
	}
	payload, err := io.ReadAll(con.in)
	if err != nil {
		return nil, fmt.Errorf("cannot read the payload from stdin: %w", err)
	}
	return payload, nil
}

// payloadMeta announces the payload's length, which the CLI always knows.
func payloadMeta(payload []byte) weida.TransferMeta {
	return weida.TransferMeta{ContentLen: uint64(len(payload)), HasContentLen: true}
}

// sendPayload writes payload to out in pieces and finishes it. Ending ctx
// cancels the transfer, which also frees a Write blocked on flow control;
// Finish and Cancel are never both called, so an interrupted transfer is
// never mistaken for a complete one.
func sendPayload(ctx context.Context, out *weida.OutgoingTransfer, payload []byte, meter *progress) (*weida.Delivery, error) {
	stopWatching := context.AfterFunc(ctx, out.Cancel)
	for len(payload) > 0 {
		n, err := out.Write(payload[:min(len(payload), pieceSize)])
		meter.addSent(n)
		if err != nil {
			stopWatching()
			out.Cancel()
			return nil, err
		}
		payload = payload[n:]
	}
	if !stopWatching() {
		return nil, &weida.Error{Kind: weida.KindCanceled, Msg: "interrupted before the transfer was finished", Err: ctx.Err()}
	}
	return out.Finish()
}

// pieceBuffers keeps copyInPieces' buffers between copies: a server copies
// a payload per request, and a fresh 64 KiB each time is garbage for the
// collector to clear.
var pieceBuffers = sync.Pool{New: func() any { b := make([]byte, pieceSize); return &b }}

// copyInPieces streams src to dst as it arrives, one read of at most
// pieceSize at a time, and counts what was copied. count may be nil.
func copyInPieces(dst io.Writer, src io.Reader, count func(int)) (int64, error) {
	bp := pieceBuffers.Get().(*[]byte)
	defer pieceBuffers.Put(bp)
	buf := *bp
	var total int64
	for {
		n, readErr := src.Read(buf)
		if n > 0 {
			if _, err := dst.Write(buf[:n]); err != nil {
				return total, err
			}
			total += int64(n)
			if count != nil {
				count(n)
			}
		}
		if readErr == io.EOF {
			return total, nil
		}
		if readErr != nil {
			return total, readErr
		}
	}
}
