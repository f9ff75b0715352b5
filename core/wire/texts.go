package wire

import (
	"strings"
	"unicode/utf8"
)

// Text values must be copied out of a header, whose buffer the caller
// reuses for the next stream. The copies of one header share a single
// allocation: the decoder notes where each validated text lies, and
// joinTexts copies them all at once after the walk. Keeping one of the
// strings alive keeps only that header's text bytes (at most the sum of the
// text caps), never the header itself.

// textSpan locates a validated text value inside the header.
type textSpan struct{ off, n int }

// textSpan reads a text string of at most limit bytes, checks that it is
// UTF-8, and returns where it lies. The cap is checked before the bytes are
// looked at.
func (r *reader) textSpan(limit int) (textSpan, error) {
	n, err := r.expect(majorText)
	if err != nil {
		return textSpan{}, err
	}
	off := r.off
	b, err := r.span(n, limit, "text")
	if err != nil {
		return textSpan{}, err
	}
	if !utf8.Valid(b) {
		return textSpan{}, violation("text is not valid UTF-8")
	}
	return textSpan{off: off, n: len(b)}, nil
}

// joinTexts sets out[i] to the text at spans[i] (a zero span gives ""),
// with one allocation for all of them.
func joinTexts(hdr []byte, spans []textSpan, out []string) {
	total := 0
	for _, s := range spans {
		total += s.n
	}
	if total == 0 {
		return
	}
	var sb strings.Builder
	sb.Grow(total)
	for _, s := range spans {
		sb.Write(hdr[s.off : s.off+s.n])
	}
	all := sb.String()
	at := 0
	for i, s := range spans {
		out[i] = all[at : at+s.n]
		at += s.n
	}
}
