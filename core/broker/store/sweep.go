package store

import (
	"encoding/hex"
	"errors"
	"io/fs"
	"path/filepath"
)

// prepare creates payload/, payload/tmp/ and all 256 payload/<hh>/ fan-out
// directories, makes their names durable, and empties tmp: a body still
// there was never admitted (recovery step 5), so nothing can name it.
// Creating the fan-out once here spares every Admit a mkdir, a failed
// create and, for Flushed, an fsync of payload/.
func (p *payloads) prepare() error {
	if err := p.fs.MkdirAll(p.tmp, 0o700); err != nil {
		return ioError("creating payload directory", p.tmp, err)
	}
	for i := range 256 {
		dir := p.dirOf([32]byte{byte(i)})
		if err := p.fs.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return ioError("creating payload directory", dir, err)
		}
	}
	if err := syncDirOf(p.fs, p.root); err != nil {
		return err
	}
	entries, err := p.fs.ReadDir(p.tmp)
	if err != nil {
		return ioError("listing", p.tmp, err)
	}
	for _, e := range entries {
		path := filepath.Join(p.tmp, e.Name())
		if err := p.fs.RemoveAll(path); err != nil {
			return ioError("removing unadmitted body", path, err)
		}
	}
	return nil
}

// sweep deletes every payload file no live message references (recovery step
// 5). Open calls it only when every queue recovered, because the references
// of a queue that failed to recover are unknown. Files whose names are not
// digests are left alone: they are not ours to judge.
func (p *payloads) sweep() error {
	dirs, err := p.fs.ReadDir(p.root)
	if err != nil {
		return ioError("listing", p.root, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, dir := range dirs {
		if !dir.IsDir() || len(dir.Name()) != 2 {
			continue
		}
		files, err := p.fs.ReadDir(filepath.Join(p.root, dir.Name()))
		if err != nil {
			return ioError("listing", filepath.Join(p.root, dir.Name()), err)
		}
		for _, f := range files {
			var d [32]byte
			if n, err := hex.Decode(d[:], []byte(f.Name())); err != nil || n != 32 || len(f.Name()) != 64 {
				continue
			}
			if ref := p.refs[d]; ref != nil && ref.count > 0 {
				continue
			}
			path := p.path(d)
			if err := p.fs.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return ioError("removing unreferenced payload", path, err)
			}
		}
	}
	return nil
}
