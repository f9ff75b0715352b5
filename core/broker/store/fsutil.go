package store

import "os"

// syncDir fsyncs a directory so that a file created, renamed or removed in
// it survives power loss, not just the file's data.
func syncDir(path string) error {
	d, err := os.Open(path)
	if err != nil {
		return ioError("opening directory for fsync", path, err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return ioError("fsync of directory", path, err)
	}
	return nil
}
