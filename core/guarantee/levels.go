package guarantee

import "fmt"

// level is the underlying type of every dimension: each is a small closed
// table of named constants indexed from the dimension's core level.
type level interface {
	~uint8
}

// levelName returns names[v], or "Type(v)" for a value outside the table so
// that a misused constant is still visible in messages rather than blank.
func levelName[T level](v T, names []string, typeName string) string {
	if int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typeName, uint8(v))
}

// known reports whether v is one of the len(names) declared constants.
func known[T level](v T, names []string) bool {
	return int(v) < len(names)
}

// unknownRank is the rank of a value outside a dimension's table: below every
// real level, so it never satisfies a requirement.
const unknownRank = -1
