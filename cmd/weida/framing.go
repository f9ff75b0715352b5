package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"strings"

	weida "github.com/weida-go/weida/core"
)

// framing is how sub separates one payload from the next on stdout
// (SURFACE.md §1.4).
type framing int

const (
	frameLine   framing = iota // payload, then "\n": the default; ambiguous for payloads holding "\n"
	frameRaw                   // payload only: for --count 1, where the process's exit is the frame
	frameNul                   // payload, then one 0x00 byte: what xargs -0 reads
	frameLength                // 8-byte big-endian length, then payload: unambiguous for any payload
)

// framingNames spells each framing as --framing takes it, in the order the
// usage text lists them.
var framingNames = []string{frameLine: "line", frameRaw: "raw", frameNul: "nul", frameLength: "length"}

// maxHeldPayload bounds the payload --framing length holds in memory to
// learn its length. A publisher's whole-payload Publish stops at 8 MiB by
// default; only a streamed fan-out comes near this.
const maxHeldPayload = 64 << 20

// parseFraming reads a --framing value.
func parseFraming(name string) (framing, error) {
	for f, n := range framingNames {
		if n == name {
			return framing(f), nil
		}
	}
	return 0, fmt.Errorf("--framing %q is not one of %s", name, strings.Join(framingNames, ", "))
}

// writeFramed writes one message's payload to out in framing f, as it
// arrives (length framing excepted), and returns the payload's length. The
// caller flushes out.
func writeFramed(out *bufio.Writer, t *weida.IncomingTransfer, f framing) (int64, error) {
	if f == frameLength {
		return writeLengthFramed(out, t)
	}
	n, err := copyInPieces(out, t, nil)
	if err != nil {
		return n, err
	}
	switch f {
	case frameLine:
		err = out.WriteByte('\n')
	case frameNul:
		err = out.WriteByte(0)
	}
	return n, err
}

// writeLengthFramed holds the payload, under maxHeldPayload, to write its
// length first. A larger payload is refused (the library stops its stream)
// and nothing of it reaches stdout.
func writeLengthFramed(out *bufio.Writer, t *weida.IncomingTransfer) (int64, error) {
	payload, err := t.Collect(maxHeldPayload)
	if weida.KindOf(err) == weida.KindLimitExceeded {
		return 0, fmt.Errorf("--framing length holds a payload in memory, and this one exceeds %d MiB "+
			"(the other framings stream it): %w", maxHeldPayload>>20, err)
	}
	if err != nil {
		return 0, err
	}
	var prefix [8]byte
	binary.BigEndian.PutUint64(prefix[:], uint64(len(payload)))
	if _, err := out.Write(prefix[:]); err != nil {
		return 0, err
	}
	_, err = out.Write(payload)
	return int64(len(payload)), err
}
