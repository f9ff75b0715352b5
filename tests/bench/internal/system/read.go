package system

import (
	"fmt"
	"io"
)

// ReadWhole reads r to io.EOF into buf and returns the byte count. A
// message that fills buf is refused as too long, so size buf one byte
// above the largest message expected; nothing grows with the input.
func ReadWhole(r io.Reader, buf []byte) (int, error) {
	n := 0
	for {
		m, err := r.Read(buf[n:])
		n += m
		// Checked before EOF: a read may fill buf and report EOF at once.
		if n == len(buf) {
			return n, fmt.Errorf("the message is longer than %d bytes", len(buf)-1)
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
