package cursor

import (
	"io"

	"github.com/weida-go/weida/core/wire"
)

// readBufLen is the reader's whole buffer: room for many records per read
// and always for the one partial record (at most 15 bytes) a read may end
// inside.
const readBufLen = 64

// Reader parses the records of one CURSOR stream after its head header
// (PROTOCOL.md §8.6.2). It holds one fixed buffer and allocates nothing per
// record, so a flood of records costs reads, never memory.
type Reader struct {
	src        io.Reader
	buf        [readBufLen]byte
	start, end int    // the unparsed bytes are buf[start:end]
	err        error  // sticky: the stream's end or the violation seen
	bytes      uint64 // record bytes read from src
	maxOffset  uint64 // records beyond it are dropped (SetMaxOffset)
	beyond     uint64 // records dropped for it
}

// NewReader returns a reader of the records src carries.
func NewReader(src io.Reader) *Reader { return &Reader{src: src, maxOffset: wire.MaxVarint} }

// SetMaxOffset makes Next drop every later record whose offset is beyond
// max: the length of the transfer reported on, once the orderer knows it.
// A receiver cannot have reached a byte the transfer does not have, so
// such a record measures nothing; it is not a violation (the connection
// goes on) and the records around it still count. Beyond counts them.
func (r *Reader) SetMaxOffset(max uint64) { r.maxOffset = max }

// Beyond counts the records dropped for an offset past SetMaxOffset's.
func (r *Reader) Beyond() uint64 { return r.beyond }

// Next fills recs with the stream's next records and returns how many,
// reading the stream only when no whole record is buffered. Like
// io.Reader's Read it may return records together with an error: apply the
// records first. The error is io.EOF at a clean FIN; a *wire.ViolationError
// (errors.Is wire.ErrProtocolViolation) for a record cut off by FIN (rule 4)
// or one naming a reserved level (rule 5), both connection-fatal; otherwise
// the stream's own error (a reset or a lost connection, which just end the
// report). Once Next returned an error it keeps returning it.
func (r *Reader) Next(recs []wire.CursorRecord) (int, error) {
	if len(recs) == 0 {
		return 0, nil
	}
	for {
		if n, err := r.parse(recs); n > 0 || err != nil {
			return n, err
		}
		if r.err != nil {
			if r.err == io.EOF {
				// A partial record before FIN is cut off for good.
				if err := wire.CheckCursorRecordEnd(r.buf[r.start:r.end]); err != nil {
					r.fail(err)
				}
			}
			return 0, r.err
		}
		r.fill()
	}
}

// parse moves the whole records buffered into recs. A violation drops the
// buffer and becomes the reader's error.
func (r *Reader) parse(recs []wire.CursorRecord) (int, error) {
	n := 0
	for n < len(recs) {
		rec, used, err := wire.ParseCursorRecord(r.buf[r.start:r.end])
		if err == wire.ErrNeedMore {
			break
		}
		if err != nil {
			r.fail(err)
			return n, err
		}
		r.start += used
		if rec.Offset > r.maxOffset {
			r.beyond++
			continue
		}
		recs[n] = rec
		n++
	}
	return n, nil
}

// fill moves the partial record to the front and reads after it.
func (r *Reader) fill() {
	if r.start > 0 {
		r.end = copy(r.buf[:], r.buf[r.start:r.end])
		r.start = 0
	}
	m, err := r.src.Read(r.buf[r.end:])
	r.end += m
	r.bytes += uint64(m)
	if err != nil {
		r.err = err
	}
}

func (r *Reader) fail(err error) {
	r.err = err
	r.start, r.end = 0, 0
}

// BytesRead counts the record bytes read from the stream so far (the head
// header is not the reader's).
func (r *Reader) BytesRead() uint64 { return r.bytes }
