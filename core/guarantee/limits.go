package guarantee

// The per-connection caps on the state sequencing and deduplication keep
// (PROTOCOL.md §13). Every table here is fed by the peer, so each has a cap
// that holds before anything is allocated (SEMANTICS.md §7).
const (
	// MaxSequenceScopes bounds the scopes one connection tracks, on either
	// side; a scope beyond it is not numbered (sender) or not tracked
	// (receiver).
	MaxSequenceScopes = 1024
	// MaxReorderHold bounds the transfers a reassembling receiver holds,
	// summed over all scopes of a connection.
	MaxReorderHold = 256
	// MaxDedupEntries bounds the identities a deduplicating receiver
	// remembers per connection; at the cap the oldest is forgotten.
	MaxDedupEntries = 4096
)
