package store

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// segment is one journal file, named after the first seq it may admit
// (`<first-seq:020d>.seg`): every ADMIT in it has first <= seq < the next
// segment's first.
type segment struct {
	first uint64
	path  string
}

const segmentSuffix = ".seg"

func segmentPath(queueDir string, first uint64) string {
	return filepath.Join(queueDir, fmt.Sprintf("%020d%s", first, segmentSuffix))
}

// listSegments returns the queue's segments oldest first. A .seg file whose
// name is not a number is corruption: it would otherwise be skipped silently.
func listSegments(fsys FS, queueDir string) ([]segment, error) {
	entries, err := fsys.ReadDir(queueDir)
	if err != nil {
		return nil, ioError("listing journal segments in", queueDir, err)
	}
	var segs []segment
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, segmentSuffix) {
			continue
		}
		first, err := strconv.ParseUint(strings.TrimSuffix(name, segmentSuffix), 10, 64)
		if err != nil || len(name) != 20+len(segmentSuffix) {
			return nil, corruptf(filepath.Join(queueDir, name), 0, "segment name is not <first-seq:020d>.seg")
		}
		segs = append(segs, segment{first: first, path: filepath.Join(queueDir, name)})
	}
	sort.Slice(segs, func(i, j int) bool { return segs[i].first < segs[j].first })
	return segs, nil
}

// badRecord says where a segment stops parsing and why. next is where a
// following record could start: past the bad frame's declared extent when
// its length field is sane, else the next byte.
type badRecord struct {
	off, next int64
	reason    error
}

// scanSegment reads path's records in order and hands each to apply with its
// offset. It stops at the first frame that does not decode and reports it as
// bad; good is the end of the last good record. The reader holds at most one
// frame (capped at maxFrameLen) besides its buffer.
func scanSegment(fsys FS, path string, apply func(off int64, r *record) error) (good int64, bad *badRecord, err error) {
	f, err := openRead(fsys, path)
	if err != nil {
		return 0, nil, ioError("opening journal segment", path, err)
	}
	defer f.Close()
	rd := bufio.NewReaderSize(f, 64<<10)
	frame := make([]byte, maxFrameLen)
	for {
		_, err := io.ReadFull(rd, frame[:frameHeaderLen])
		if err == io.EOF {
			return good, nil, nil // clean end: nothing after the last record
		}
		if err == nil {
			var bodyLen int
			if bodyLen, err = frameBodyLen(frame); err != nil {
				return good, &badRecord{off: good, next: good + 1, reason: err}, nil
			}
			_, err = io.ReadFull(rd, frame[frameHeaderLen:frameHeaderLen+bodyLen])
			frame = frame[:frameHeaderLen+bodyLen]
		}
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return good, &badRecord{off: good, next: good + int64(len(frame)), reason: errTruncated}, nil
		case err != nil:
			return good, nil, ioError("reading journal segment", path, err)
		}
		r, n, err := decodeRecord(frame)
		if err != nil {
			return good, &badRecord{off: good, next: good + int64(len(frame)), reason: err}, nil
		}
		if err := apply(good, &r); err != nil {
			return good, nil, err
		}
		good += int64(n)
		frame = frame[:maxFrameLen]
	}
}

// frameFollows reports whether a frame that decodes cleanly starts at or
// after offset from in path. It tells a torn tail (nothing valid after the
// damage: a cut-short write, zeros, stale bytes) from corruption in the
// middle of the last segment, whose later records would otherwise be lost.
// The caller starts past the bad frame when its length is sane, so frames a
// producer might smuggle inside its own topic bytes are never looked at.
func frameFollows(fsys FS, path string, from int64) (bool, error) {
	f, err := openRead(fsys, path)
	if err != nil {
		return false, ioError("opening journal segment", path, err)
	}
	defer f.Close()
	const chunk = 64 << 10
	buf := make([]byte, chunk+maxFrameLen)
	for base := from; ; base += chunk {
		n, err := f.ReadAt(buf, base)
		if err != nil && err != io.EOF {
			return false, ioError("reading journal segment", path, err)
		}
		for i := 0; i < min(chunk, n); i++ {
			if _, _, derr := decodeRecord(buf[i:n]); derr == nil {
				return true, nil
			}
		}
		if n < len(buf) {
			return false, nil
		}
	}
}
