package store

import "sort"

// recovered is one queue directory after recovery steps 1-4 of BROKER.md
// §13.3, ready for OpenQueue to serve.
type recovered struct {
	fs         FS
	dir        string
	cell       checkpoint
	segs       []segment
	activeSize int64 // valid length of the last segment
	live       map[uint64]*Message
	// quarantined messages are out of the live set for good; their
	// payloads were set aside and they pin nothing (Queue.Quarantine).
	quarantined map[uint64]*Message
	// unreadable are live messages whose payload failed step 4: OpenQueue
	// refuses a Flushed queue for them and drops them from a Written one.
	unreadable []unreadable
	nextSeq    uint64
	tornTails  int
	dropped    int // messages a Written queue dropped for unreadable payloads
}

// unreadable is a message recovery found without a good payload.
type unreadable struct {
	m       *Message
	site    admitSite
	path    string
	problem string
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
	rq := &recovered{fs: fsys, dir: dir, cell: cell, segs: segs, live: make(map[uint64]*Message), quarantined: make(map[uint64]*Message)}
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
					switch r.typ {
					case recSettle:
						delete(rq.live, r.seq)
						delete(sites, r.seq)
					case recQuarantine:
						delete(rq.live, r.seq)
						rq.quarantined[r.seq] = m
					default:
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

// verifyPayloads re-hashes every live message's payload file (recovery
// step 4, streamed: one buffer whatever the size) and moves the messages
// whose file is missing, of the wrong length or of the wrong digest out of
// the live set into unreadable, for OpenQueue to judge at the queue's
// durability. Each distinct payload is read once. Inline bodies have no
// file and were checked with their record's CRC.
func (rq *recovered) verifyPayloads(p *payloads, sites map[uint64]admitSite) error {
	problems := make(map[[32]byte]string)
	for _, seq := range rq.seqs() {
		m := rq.live[seq]
		if m.isInline() {
			continue
		}
		problem, seen := problems[m.Digest]
		if !seen {
			var err error
			if problem, err = checkPayload(p.fs, m, p.path(m.Digest)); err != nil {
				return err
			}
			problems[m.Digest] = problem
		}
		if problem != "" {
			delete(rq.live, seq)
			rq.unreadable = append(rq.unreadable, unreadable{m: m, site: sites[seq], path: p.path(m.Digest), problem: problem})
		}
	}
	return nil
}

// unreadableError is the corrupt-store error of a Flushed queue with
// unreadable payloads: it names the queue, and the first message's seq,
// digest, payload file and ADMIT record.
func (rq *recovered) unreadableError(path []byte) error {
	u := rq.unreadable[0]
	return corruptf(u.site.seg, u.site.off, "queue %q (flushed): payload %s of live seq %d (sha256 %x) %s; %d message(s) in all",
		path, u.path, u.m.Seq, u.m.Digest, u.problem, len(rq.unreadable))
}

// syncTail fsyncs the journal's last segment, the only one that may hold
// records no fsync covered (each segment is fsynced before the next one
// starts).
func (rq *recovered) syncTail() error {
	if len(rq.segs) == 0 {
		return nil
	}
	path := rq.segs[len(rq.segs)-1].path
	f, err := openRead(rq.fs, path)
	if err != nil {
		return ioError("opening journal segment for fsync", path, err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return ioError("fsync of journal segment", path, err)
	}
	return nil
}

// seqs returns the live seqs in ascending order.
func (rq *recovered) seqs() []uint64 { return sortedSeqs(rq.live) }

// pinned returns the seqs that hold the low-water mark (the live ones; a
// quarantined message pins nothing), in ascending order.
func (rq *recovered) pinned() []uint64 { return sortedSeqs(rq.live) }

func sortedSeqs(sets ...map[uint64]*Message) []uint64 {
	var out []uint64
	for _, set := range sets {
		for seq := range set {
			out = append(out, seq)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// payloadMessages are the messages whose payload files recovery keeps
// referenced: live and unreadable (kept until OpenQueue judges them);
// quarantined ones had theirs set aside.
func (rq *recovered) payloadMessages() []*Message {
	out := make([]*Message, 0, len(rq.live)+len(rq.quarantined)+len(rq.unreadable))
	for _, set := range []map[uint64]*Message{rq.live} {
		for _, m := range set {
			out = append(out, m)
		}
	}
	for _, u := range rq.unreadable {
		out = append(out, u.m)
	}
	return out
}
