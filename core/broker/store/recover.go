package store

import (
	"errors"
	"io/fs"
	"sort"
)

// recovered is one queue directory after recovery steps 1-4 of BROKER.md
// §13.3, ready for OpenQueue to serve.
type recovered struct {
	fs         FS
	dir        string
	cell       checkpoint
	segs       []segment
	activeSize int64 // valid length of the last segment
	live       map[uint64]*Message
	nextSeq    uint64
	tornTails  int
}

// admitSite remembers where a live message's ADMIT was, to name it when its
// payload turns out to be missing.
type admitSite struct {
	seg string
	off int64
}

// recoverQueue loads the cell, scans every segment verifying CRCs, cuts a
// torn tail of the last segment, rebuilds the live set and checks that every
// live payload exists with its recorded length. Any other damage is a corrupt
// store error naming the file and offset.
func recoverQueue(fsys FS, dir string, p *payloads) (*recovered, error) {
	cell, err := readCell(fsys, dir) // step 1
	if err != nil {
		return nil, err
	}
	segs, err := listSegments(fsys, dir)
	if err != nil {
		return nil, err
	}
	rq := &recovered{fs: fsys, dir: dir, cell: cell, segs: segs, live: make(map[uint64]*Message)}
	sites := make(map[uint64]admitSite)
	var lastAdmit uint64
	for i, seg := range segs { // step 2
		limit := uint64(0) // exclusive upper bound for ADMIT seqs in seg; 0 = none
		if i+1 < len(segs) {
			limit = segs[i+1].first
		}
		apply := func(off int64, r *record) error {
			if !r.isAdmit() {
				// A seq below the first segment was admitted in a purged one.
				if r.seq > lastAdmit && r.seq >= segs[0].first {
					return corruptf(seg.path, off, "%s names seq %d, never admitted", recordName(r.typ), r.seq)
				}
				if m := rq.live[r.seq]; m != nil { // step 3
					if r.typ == recSettle {
						delete(rq.live, r.seq)
						delete(sites, r.seq)
					} else {
						m.Attempts = r.count
					}
				}
				return nil
			}
			if r.seq <= lastAdmit || r.seq < seg.first || (limit != 0 && r.seq >= limit) {
				return corruptf(seg.path, off, "ADMIT seq %d out of order (previous %d, segment range from %d)", r.seq, lastAdmit, seg.first)
			}
			lastAdmit = r.seq
			if r.seq >= cell.lowWater {
				rq.live[r.seq] = &Message{Seq: r.seq, Digest: r.digest, BodyLen: r.bodyLen, Meta: r.meta, inline: r.inline}
				if r.typ == recAdmit {
					sites[r.seq] = admitSite{seg.path, off}
				}
			}
			return nil
		}
		good, bad, err := scanSegment(fsys, seg.path, apply)
		if err != nil {
			return nil, err
		}
		rq.activeSize = good
		if bad == nil {
			continue
		}
		if err := rq.cutTornTail(i, seg, bad); err != nil {
			return nil, err
		}
	}
	rq.nextSeq = max(cell.nextSeq, lastAdmit+1, 1)
	if len(segs) > 0 {
		rq.nextSeq = max(rq.nextSeq, segs[len(segs)-1].first)
	}
	return rq, rq.verifyPayloads(p, sites) // step 4
}

// cutTornTail truncates the last segment at a bad record when nothing valid
// follows it: that is a write the crash cut short. Anywhere else the damage
// is a corrupt store.
func (rq *recovered) cutTornTail(i int, seg segment, bad *badRecord) error {
	if i != len(rq.segs)-1 {
		return corruptf(seg.path, bad.off, "%v (not at the tail of the last segment)", bad.reason)
	}
	follows, err := frameFollows(rq.fs, seg.path, bad.next)
	if err != nil {
		return err
	}
	if follows {
		return corruptf(seg.path, bad.off, "%v, with valid records after it", bad.reason)
	}
	if err := truncateFile(rq.fs, seg.path, bad.off); err != nil {
		return ioError("truncating torn journal tail of", seg.path, err)
	}
	rq.tornTails++
	return nil
}

// verifyPayloads checks every live message's payload file exists with the
// length its ADMIT recorded (recovery step 4). Inline bodies have no file
// and were checked with their record's CRC.
func (rq *recovered) verifyPayloads(p *payloads, sites map[uint64]admitSite) error {
	sizes := make(map[[32]byte]int64)
	for _, seq := range rq.seqs() {
		m := rq.live[seq]
		if m.isInline() {
			continue
		}
		size, seen := sizes[m.Digest]
		if !seen {
			info, err := statFile(p.fs, p.path(m.Digest))
			switch {
			case errors.Is(err, fs.ErrNotExist):
				size = -1
			case err != nil:
				return ioError("checking payload", p.path(m.Digest), err)
			default:
				size = info.Size()
			}
			sizes[m.Digest] = size
		}
		site := sites[seq]
		if size < 0 {
			return corruptf(site.seg, site.off, "payload %s of live seq %d is missing", p.path(m.Digest), seq)
		}
		if uint64(size) != m.BodyLen {
			return corruptf(site.seg, site.off, "payload %s of live seq %d is %d bytes, the journal says %d",
				p.path(m.Digest), seq, size, m.BodyLen)
		}
	}
	return nil
}

// seqs returns the live seqs in ascending order.
func (rq *recovered) seqs() []uint64 {
	out := make([]uint64, 0, len(rq.live))
	for seq := range rq.live {
		out = append(out, seq)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
