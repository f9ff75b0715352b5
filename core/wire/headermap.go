package wire

// headerMap walks the pairs of one CBOR map and enforces the key rules of
// PROTOCOL.md §7.2: every key is a uint and strictly greater than the one
// before it, which also makes duplicate detection complete for skipped
// extension keys, in constant memory.
//
// It holds no pointer to the reader on purpose: error messages copy frame
// and names into the heap, and a reader reachable from here would be
// dragged along, costing an allocation on every decode.
type headerMap struct {
	frame string   // where we are, for messages: "DATA", "HELLO key 5 (guarantees_offered)"
	names []string // key names by number, for messages
	left  uint64   // pairs not yet read
	prev  uint64   // last key read
	any   bool     // whether a key has been read
	top   bool     // the header's own map: nothing may follow it
}

// openHeader checks a whole header (layer 1, see cborread.go) and opens its
// top-level map.
func openHeader(r *reader, frame string, names []string) (headerMap, error) {
	if err := checkWellformed(frame, r.buf); err != nil {
		return headerMap{}, err
	}
	n, err := r.mapLen()
	if err != nil {
		return headerMap{}, violation("%s header: %s", frame, reasonOf(err))
	}
	return headerMap{frame: frame, names: names, left: n, top: true}, nil
}

// openNested opens a map that is the value of a key of an outer map.
func openNested(r *reader, frame string, names []string) (headerMap, error) {
	n, err := r.mapLen()
	if err != nil {
		return headerMap{}, violation("%s: %s", frame, reasonOf(err))
	}
	return headerMap{frame: frame, names: names, left: n}, nil
}

// next reads the next key from r. It returns more == false once every pair
// has been read; for the header's own map it then also rejects trailing
// bytes.
func (m *headerMap) next(r *reader) (key uint64, more bool, err error) {
	if m.left == 0 {
		if m.top && r.remaining() != 0 {
			return 0, false, violation("%s header: %d bytes left after the map", m.frame, r.remaining())
		}
		return 0, false, nil
	}
	m.left--
	major, ai, key, err := r.head()
	if err != nil {
		return 0, false, violation("%s: %s", m.frame, reasonOf(err))
	}
	if major != majorUint || ai == aiIndef {
		return 0, false, violation("%s: a key is a %s, keys must be uint", m.frame, typeName(major, ai))
	}
	if m.any && key <= m.prev {
		if key == m.prev {
			return 0, false, violation("%s: duplicate key %d", m.frame, key)
		}
		return 0, false, violation("%s: key %d after key %d, keys must strictly ascend", m.frame, key, m.prev)
	}
	m.prev, m.any = key, true
	return key, true, nil
}

// name returns the name of a key, for messages.
func (m *headerMap) name(key uint64) string {
	if key < uint64(len(m.names)) && m.names[key] != "" {
		return m.names[key]
	}
	return "unknown, skipped"
}

// keyError places a value error at its key: "DATA key 8 (achieved): ...".
func (m *headerMap) keyError(key uint64, err error) error {
	return violation("%s key %d (%s): %s", m.frame, key, m.name(key), reasonOf(err))
}

// missing reports a required key that the map did not hold.
func (m *headerMap) missing(key uint64) error {
	return violation("%s key %d (%s) is required but missing", m.frame, key, m.name(key))
}

// walk reads every pair of the map, handing each key to value, which reads
// the key's value (or skips an unknown one). It places a value's error at
// its key (unless value already did, by returning placed) and, once the map
// is read, reports the first of keys 0..required-1 that it did not hold.
// Every header-only frame decodes through it; DATA keeps its own loop on
// the hot path.
func (m *headerMap) walk(r *reader, required uint64, value func(key uint64) error) error {
	var seen uint64 // bit k: key k (< required <= 64) was present
	for {
		key, more, err := m.next(r)
		if err != nil {
			return err
		}
		if !more {
			break
		}
		if err := value(key); err != nil {
			if p, ok := err.(placed); ok {
				return p.error
			}
			return m.keyError(key, err)
		}
		if key < required {
			seen |= 1 << key
		}
	}
	for key := uint64(0); key < required; key++ {
		if seen&(1<<key) == 0 {
			return m.missing(key)
		}
	}
	return nil
}

// placed marks an error that already names its key, so walk passes it on
// unchanged.
type placed struct{ error }
