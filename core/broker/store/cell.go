package store

import (
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// checkpoint is the two-slot cell of a queue (BROKER.md §13.3): written
// alternately to cell.0 and cell.1 so a torn write only ever damages the slot
// being written, and the valid slot with the higher generation wins.
//
// The cell is an accelerator, not the source of truth: segments are only
// ever deleted as a prefix of the journal (see journal.purge), so a journal
// without a cell still recovers exactly the live set, only slower.
type checkpoint struct {
	generation uint64
	lowWater   uint64 // every seq below this is settled
	nextSeq    uint64 // the seq the next ADMIT takes
}

// cellLen is generation, low_water, next_seq and a CRC32C over the three.
const cellLen = 8 + 8 + 8 + 4

func cellPath(queueDir string, slot uint64) string {
	return filepath.Join(queueDir, []string{"cell.0", "cell.1"}[slot%2])
}

func (c checkpoint) encode() []byte {
	b := make([]byte, 0, cellLen)
	b = binary.LittleEndian.AppendUint64(b, c.generation)
	b = binary.LittleEndian.AppendUint64(b, c.lowWater)
	b = binary.LittleEndian.AppendUint64(b, c.nextSeq)
	return binary.LittleEndian.AppendUint32(b, crc32c(b))
}

// decodeCell returns the checkpoint in b and whether the slot is valid.
func decodeCell(b []byte) (checkpoint, bool) {
	if len(b) != cellLen || crc32c(b[:24]) != binary.LittleEndian.Uint32(b[24:]) {
		return checkpoint{}, false
	}
	return checkpoint{
		generation: binary.LittleEndian.Uint64(b[0:]),
		lowWater:   binary.LittleEndian.Uint64(b[8:]),
		nextSeq:    binary.LittleEndian.Uint64(b[16:]),
	}, true
}

// readCell loads the newer valid slot; with no valid slot it returns the zero
// checkpoint. Only a failure to read a slot that exists is an error.
func readCell(fsys FS, queueDir string) (checkpoint, error) {
	var best checkpoint
	for slot := uint64(0); slot < 2; slot++ {
		path := cellPath(queueDir, slot)
		b, err := readSmallFile(fsys, path, cellLen+1)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return checkpoint{}, ioError("reading checkpoint cell", path, err)
		}
		if c, ok := decodeCell(b); ok && c.generation > best.generation {
			best = c
		}
	}
	return best, nil
}

// readSmallFile reads at most limit bytes of path: a cell file is tiny, and a
// huge one must not become a huge allocation.
func readSmallFile(fsys FS, path string, limit int) ([]byte, error) {
	f, err := openRead(fsys, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, limit)
	n, err := f.ReadAt(b, 0)
	if n > 0 || err == nil {
		return b[:n], nil
	}
	if errors.Is(err, io.EOF) {
		return b[:0], nil
	}
	return nil, err
}

// writeCell writes c into slot generation%2 and fsyncs it and the queue
// directory (the slot may be a new file), so that a segment deleted after it
// returns is never needed again.
func writeCell(fsys FS, queueDir string, c checkpoint) error {
	path := cellPath(queueDir, c.generation)
	f, err := fsys.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return ioError("writing checkpoint cell", path, err)
	}
	_, err = f.Write(c.encode())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return ioError("writing checkpoint cell", path, err)
	}
	return syncDirOf(fsys, queueDir)
}
