package weida

import (
	"bytes"
	"io"
	"os"
	"strings"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/identity"
)

// maxPinFileBytes bounds what TrustPinFile reads: thousands of keys.
const maxPinFileBytes = 1 << 20

// TrustPinFile trusts every key the file at path lists: one fingerprint
// ("sha256:<64 hex>") per line, blank lines and what follows a "#"
// ignored — the file `weida broker --trust-out` writes for a cluster's
// members, so that a redirect to any member is trusted. Errors name the
// file (and the line): Io when it cannot be read or is larger than 1 MiB,
// InvalidFingerprint for a line that is not a fingerprint, Runtime for a
// file that lists none.
func TrustPinFile(path string) (Trust, error) {
	data, err := readCapped(path, maxPinFileBytes)
	if err != nil {
		return Trust{}, errs.Wrap(errs.KindIO, err, "cannot read the trust file "+path)
	}
	trust := identity.TrustByAddress()
	pins := 0
	for n, line := range bytes.Split(data, []byte("\n")) {
		text, _, _ := strings.Cut(string(line), "#")
		if text = strings.TrimSpace(text); text == "" {
			continue
		}
		fp, err := identity.ParseFingerprint(text)
		if err != nil {
			return Trust{}, errs.New(errs.KindInvalidFingerprint, "trust file %s, line %d: %v", path, n+1, err)
		}
		trust, pins = trust.AndPin(fp), pins+1
	}
	if pins == 0 {
		return Trust{}, errs.New(errs.KindRuntime, "trust file %s lists no key", path)
	}
	return trust, nil
}

// readCapped reads the file at path, refusing one above limit bytes.
func readCapped(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = errs.New(errs.KindIO, "it is larger than %d bytes", limit)
	}
	return data, err
}
