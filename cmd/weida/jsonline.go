package main

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// jsonLine is the line of raw where the value at path (object keys and
// array indexes, outermost first) starts, or 0 when raw holds no such
// value. It walks the tokens once; raw is a configuration file, capped
// before it is read.
func jsonLine(raw []byte, path []string) int {
	dec := json.NewDecoder(bytes.NewReader(raw))
	type frame struct {
		object bool
		key    string // the key whose value comes next (objects)
		index  int    // the next element's index (arrays)
	}
	var stack []frame
	// at reports whether the value about to be read is the one wanted.
	at := func() bool {
		if len(stack) != len(path) {
			return false
		}
		for i, f := range stack {
			want := path[i]
			if f.object && f.key != want || !f.object && strconv.Itoa(f.index) != want {
				return false
			}
		}
		return true
	}
	// valueRead advances the enclosing frame past one value.
	valueRead := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].object {
				stack[n-1].key = ""
			} else {
				stack[n-1].index++
			}
		}
	}
	for {
		// Where the next token starts: past the separators before it.
		start := dec.InputOffset()
		for start < int64(len(raw)) && bytes.IndexByte([]byte(" \t\r\n,:"), raw[start]) >= 0 {
			start++
		}
		tok, err := dec.Token()
		if err != nil {
			return 0
		}
		n := len(stack)
		if n > 0 && stack[n-1].object && stack[n-1].key == "" {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:n-1]
				valueRead()
				continue
			}
			stack[n-1].key, _ = tok.(string) // a key: its value comes next
			continue
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:n-1]
			valueRead()
			continue
		}
		if at() {
			return 1 + bytes.Count(raw[:start], []byte("\n"))
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{object: true})
		case json.Delim('['):
			stack = append(stack, frame{})
		default:
			valueRead()
		}
	}
}
