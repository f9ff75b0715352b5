package identity

import (
	"fmt"
	"sync/atomic"
)

// PinSet is a set of pinned fingerprints that can be replaced while
// connections are being accepted: a server that reloads its client list
// (a broker on SIGHUP) judges every handshake after the replacement by the
// new list, without rebinding. Connections already established are not
// touched; whoever replaces the set decides what to do with them.
//
// A Trust that holds a PinSet (Trust.AndPinSet) is no longer a fixed
// value: its verdicts follow the set. It is safe for concurrent use.
type PinSet struct {
	id   uint64
	pins atomic.Pointer[map[Fingerprint]struct{}]
}

var pinSetIDs atomic.Uint64

// NewPinSet returns a set holding fps.
func NewPinSet(fps ...Fingerprint) *PinSet {
	s := &PinSet{id: pinSetIDs.Add(1)}
	s.Replace(fps)
	return s
}

// Replace makes fps the set's whole content, at once for every later
// handshake.
func (s *PinSet) Replace(fps []Fingerprint) {
	m := make(map[Fingerprint]struct{}, len(fps))
	for _, fp := range fps {
		m[fp] = struct{}{}
	}
	s.pins.Store(&m)
}

// Contains reports whether fp is in the set now.
func (s *PinSet) Contains(fp Fingerprint) bool {
	_, ok := (*s.pins.Load())[fp]
	return ok
}

// Len is the number of fingerprints in the set now.
func (s *PinSet) Len() int { return len(*s.pins.Load()) }

// AndPinSet returns t with every fingerprint of set trusted as a pin as
// well, as the set stands at each handshake. A Trust holding a set is
// never IsEmpty (the set may be filled later), and its Key names the set
// by identity, not by content.
func (t Trust) AndPinSet(set *PinSet) Trust {
	if set == nil || t.pinSet == set {
		return t
	}
	t.pinSet = set
	return t
}

// pinSetKey is the Key entry for a Trust's pin set.
func (s *PinSet) key() string { return fmt.Sprintf("pinset=%d", s.id) }
