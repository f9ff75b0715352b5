package identity

import "strconv"

// maxQuotedBytes bounds how much of an offending input an error sentence
// repeats, so a huge argument cannot produce a huge message.
const maxQuotedBytes = 256

// quote renders s for an error sentence: Go-quoted, truncated when long.
func quote(s string) string {
	if len(s) <= maxQuotedBytes {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:maxQuotedBytes]) + "…"
}
