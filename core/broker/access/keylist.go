package access

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/weida-go/weida/core/identity"
)

// maxKeyFileBytes bounds a key file read into memory: about 14,000 keys.
const maxKeyFileBytes = 1 << 20

// ReadKeyFile reads a file of client keys: one fingerprint
// ("sha256:" and 64 hex digits) per line; blank lines and everything after
// a '#' are ignored. An error names the file and the line.
func ReadKeyFile(path string) ([]identity.Fingerprint, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxKeyFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	if len(raw) > maxKeyFileBytes {
		return nil, fmt.Errorf("key file %s is larger than %d bytes", path, maxKeyFileBytes)
	}
	return ParseKeyList(raw, path)
}

// ParseKeyList parses the key-file format from data; name is what errors
// call the source.
func ParseKeyList(data []byte, name string) ([]identity.Fingerprint, error) {
	var keys []identity.Fingerprint
	seen := make(map[identity.Fingerprint]int)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 256), maxKeyFileBytes)
	for line := 1; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		fp, err := identity.ParseFingerprint(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if first, dup := seen[fp]; dup {
			return nil, fmt.Errorf("%s:%d: %s is listed already on line %d", name, line, fp, first)
		}
		seen[fp] = line
		keys = append(keys, fp)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return keys, nil
}
