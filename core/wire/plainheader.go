package wire

// plainHeader reports whether hdr has the shape of almost every header
// sent: one definite map of at most 23 pairs whose keys and values are
// uints, definite byte or text strings, or definite arrays of at most 23
// uints, with nothing after the map. Such a header is well-formed
// under strictMode (no indefinite length, tag, simple value or float; two
// levels; small containers), so layer 1 need not walk it a second time;
// anything else, however legal, goes to strictMode for its verdict. It only
// answers yes or no: the walker still judges every key and value.
func plainHeader(hdr []byte) bool {
	r := reader{buf: hdr}
	major, ai, pairs, err := r.head()
	if err != nil || major != majorMap || ai >= 24 {
		return false
	}
	for range 2 * pairs { // keys and values alike
		major, ai, arg, err := r.head()
		if err != nil || ai == aiIndef {
			return false
		}
		switch major {
		case majorUint:
		case majorBytes, majorText:
			if uint64(r.remaining()) < arg {
				return false
			}
			r.off += int(arg)
		case majorArray:
			if ai >= 24 {
				return false
			}
			for range arg {
				if m, ai, _, err := r.head(); err != nil || m != majorUint || ai == aiIndef {
					return false
				}
			}
		default:
			return false
		}
	}
	return r.remaining() == 0
}
