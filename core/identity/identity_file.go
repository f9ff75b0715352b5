package identity

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/weida-go/weida/core/errs"
)

// maxIdentityFileBytes bounds what LoadPEMFile reads: a chain and a key are
// a few KiB, so anything near this size is not an identity file.
const maxIdentityFileBytes = 1 << 20

// identityFileMode lets only the owner read the private key.
const identityFileMode = 0o600

// LoadPEMFile reads an identity (chain and key in one PEM file, as PEM
// writes it). Errors name the path: kind Io when the file cannot be read
// (errors.Is(err, fs.ErrNotExist) tells a missing file), kind Tls when its
// content is not a usable identity.
func LoadPEMFile(path string) (*Identity, error) {
	data, err := readFileCapped(path, maxIdentityFileBytes)
	if err != nil {
		return nil, fileError(errs.KindIO, "cannot read identity file", path, err)
	}
	id, err := parseIdentityPEM(data)
	if err != nil {
		return nil, fileError(errs.KindTLS, "cannot read identity file", path, err)
	}
	return id, nil
}

// WritePEMFile writes PEM() to a new file at path with mode 0600. It never
// overwrites: if path exists the error (kind Io) satisfies
// errors.Is(err, fs.ErrExist).
//
// The content is written to a private temporary file in the same directory
// and then hard-linked into place, so the file appears complete or not at
// all and a concurrent LoadOrCreate never reads half a key. Where hard
// links are unavailable it falls back to an exclusive create.
func (id *Identity) WritePEMFile(path string) error {
	data := id.PEM()
	err := writeViaLink(path, data)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		err = writeExclusive(path, data)
	}
	if errors.Is(err, fs.ErrExist) {
		return &errs.Error{
			Kind: errs.KindIO,
			Msg:  fmt.Sprintf("cannot write identity file %s: it already exists, and an identity file is never overwritten", path),
			Err:  err,
		}
	}
	if err != nil {
		return fileError(errs.KindIO, "cannot write identity file", path, err)
	}
	return nil
}

// LoadOrCreate loads the identity at path, or, when no file exists there,
// generates one naming names and writes it owner-only; created reports
// which happened. If another process creates the file in between, its
// identity is loaded instead, so concurrent starters agree on one key. A
// file that exists but does not parse is an error and is left untouched.
func LoadOrCreate(path string, names []string) (id *Identity, created bool, err error) {
	id, err = LoadPEMFile(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return id, false, err
	}
	id, err = GenerateFor(names)
	if err != nil {
		return nil, false, err
	}
	err = id.WritePEMFile(path)
	if errors.Is(err, fs.ErrExist) {
		id, err = LoadPEMFile(path)
		return id, false, err
	}
	if err != nil {
		return nil, false, err
	}
	return id, true, nil
}

// writeViaLink writes data to a temporary 0600 file beside path and links
// it to path; link(2) fails with EEXIST rather than replace a file.
func writeViaLink(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".weida-identity-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := writeAndClose(tmp, data); err != nil {
		return err
	}
	return os.Link(tmp.Name(), path)
}

// writeExclusive creates path with O_EXCL and removes it again if the
// content could not be written completely.
func writeExclusive(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, identityFileMode)
	if err != nil {
		return err
	}
	if err := writeAndClose(f, data); err != nil {
		_ = os.Remove(path)
		return err
	}
	return nil
}

func writeAndClose(f *os.File, data []byte) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	return err
}

// readFileCapped reads a whole file, refusing one larger than limit before
// buffering it.
func readFileCapped(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("the file is larger than %d bytes", limit)
	}
	return data, nil
}

// fileError builds "<what> <path>: <reason>", dropping the path that
// *fs.PathError would repeat while keeping err for errors.Is.
func fileError(kind errs.Kind, what, path string, err error) *errs.Error {
	reason := err
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		reason = pathErr.Err
	}
	var linkErr *os.LinkError
	if errors.As(err, &linkErr) {
		reason = linkErr.Err
	}
	return &errs.Error{Kind: kind, Msg: fmt.Sprintf("%s %s: %v", what, path, reason), Err: err}
}
