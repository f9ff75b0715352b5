package wire

// Opt is an optional header value: Ok reports presence, which the wire
// distinguishes from any default value.
type Opt[T any] struct {
	V  T
	Ok bool
}

// Some returns a present Opt holding v.
func Some[T any](v T) Opt[T] { return Opt[T]{V: v, Ok: true} }

// optUint reads a present uint value.
func optUint(r *reader) (Opt[uint64], error) {
	v, err := r.uint()
	return Opt[uint64]{V: v, Ok: true}, err
}
