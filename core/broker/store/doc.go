// Package store is the crash-safe persistent store of the weida queue
// broker (BROKER.md §13.3): what lets a queue certify Stored(Written) or
// Stored(Flushed) and keep its messages across a restart.
//
// # Layout
//
// One data directory per node:
//
//	LOCK                                 flock: one store per directory
//	payload/<hh>/<sha256-hex>            bodies over 4 KiB, content-addressed, shared by all queues
//	payload/tmp/body-*                   large bodies being received (emptied at Open)
//	queue/<sha256-hex of path>/cell.0    two-slot checkpoint cell
//	queue/<sha256-hex of path>/cell.1
//	queue/<sha256-hex of path>/<first-seq:020d>.seg   journal segments
//
// A body of at most [MaxInlineBodyBytes] (4 KiB) is stored inline: inside
// its ADMIT_INLINE journal record, with no payload file, so a small message
// costs one journal append and, for [Flushed], a share of one journal fsync
// (group commit: concurrent Admits share it). Inline bodies of live messages
// are also kept in memory for [Queue.OpenBody]; they take no part in payload
// refcounts or dedup.
//
// A larger body is streamed to a temp file while it is hashed ([Body] is an
// io.Writer), then renamed to its digest, or dropped when a live message
// already has that body (dedup; files are refcounted across queues). One
// that fits in the 32 KiB write buffer skips tmp and is created straight at
// its payload path (O_EXCL, so the usual case costs one open). The 256
// payload/<hh> directories are created and made durable at [Open], so no
// Admit makes or fsyncs a directory there. Only after the payload is in
// place is an ADMIT record appended to the queue's journal, so a record
// never names a payload that is not on disk at the queue's level. For
// [Flushed] the payload, its directory entry and the journal are fsynced
// before Admit returns. SETTLE and ATTEMPT records are appended without
// fsync: losing one in a crash means a redelivery or a lower attempt label,
// both allowed under at-least-once. Neither Settle nor Attempt waits for the
// disk: each queue's writer goroutine appends them in batches (one write(2)
// each) and does the slow housekeeping — checkpoint cell, segment purge, the
// journal fsync before freed payloads are removed — outside the queue's
// lock, so admissions and deliveries never wait behind it (writer.go).
//
// # Records
//
// Every record is framed u32 len | u32 crc32c(type ‖ body) | u8 type | body,
// little-endian, with five types: ADMIT (seq, digest, body length, topic,
// content type, traceparent, tracestate), ADMIT_INLINE (the same fields,
// then the body itself), SETTLE (seq), ATTEMPT (seq, count) and QUARANTINE
// (seq, reason). This is our choice of format (§13.3 recommends one, it
// does not fix it); ADMIT_INLINE and QUARANTINE were added as new types so
// that journals written before them still recover. A length read from disk is checked against the largest possible
// ADMIT_INLINE before anything is read or allocated.
//
// # Recovery
//
// [Open] recovers every queue before it returns (steps 1-5 of §13.3): load the
// newer valid cell slot; scan segments in order verifying CRCs, cutting a bad
// record at the tail of the last segment (a torn write: nothing valid follows
// it) and refusing the queue for a bad record anywhere else; rebuild the live
// set as ADMIT minus SETTLE and QUARANTINE above the cell's low-water
// mark, with attempts from ATTEMPT; re-hash every live payload file,
// streamed, against its recorded length and digest (an inline body was
// checked by its record's CRC); rebuild payload refcounts, delete payload/tmp and, when every queue
// recovered, every unreferenced payload. [Store.OpenQueue] then hands the
// live messages to the broker in seq order (step 6) before it registers the
// path (step 7). A corrupt store is an error wrapping [ErrCorrupt] that names
// the file and the offset.
//
// A live payload that is missing, or whose length or digest is wrong, is
// judged at the queue's durability (§13.3 step 4 as amended): a [Flushed]
// queue is a corrupt store (the error names the queue, the seq and the
// digest); a [Written] queue never promised to survive an OS crash, so the
// message is dropped — logged through [Options].Logf, counted in
// [Stats].DroppedAtRecovery, and settled in the journal so it can never
// come back — and the rest is served.
//
// # Reading payloads, and what can go wrong
//
// [Queue.OpenBody] verifies as it reads: the reader never returns more than
// the recorded length and, at the end, returns io.EOF only if the bytes
// hash to the message's digest; otherwise it returns an error wrapping
// [ErrPayloadCorrupt] instead, so a caller forwarding the body resets the
// transfer instead of finishing it. A payload file that is gone is
// [ErrPayloadMissing] at OpenBody. Both are permanent and carry the seq and
// digest in a [*PayloadError]; [IsTransient] tells the failures that may
// pass (EMFILE, ENFILE, EAGAIN, EINTR, ENOMEM, EIO) from them. A message
// whose payload is permanently unreadable is taken out with
// [Queue.Quarantine]: a fsynced QUARANTINE record keeps a restart from
// bringing it back, its payload file is moved to <dir>/quarantine/ for an
// operator (so a later Admit of the same body writes a sound file rather
// than deduplicating against it), and it pins no segment.
//
// An Admit whose ADMIT record was written but whose fsync then failed
// returns an Indeterminate error wrapping [ErrNotDurable]: the message may
// or may not survive a crash. Every other Admit error means nothing was
// recorded.
//
// # The disk
//
// Every file operation goes through [Options].FS ([OSFS] by default), so
// tests can run the store on a disk that fails chosen operations or loses
// power (package faultfs).
//
// Segments roll at [Options].SegmentBytes and are only ever deleted whole and
// as a prefix of the journal, once every message they admitted is settled,
// after the new low-water mark is written to the cell. A segment is never
// rewritten in place. One long-unsettled message therefore pins the segments
// after it; that is the price of never rewriting.
//
// # Why a log of our own
//
// An embedded key-value store (bbolt, pebble) would solve a different
// problem. Bodies are streamed files of any size — a 1 GiB body must not be
// special, and a B-tree or LSM value is held in memory and rewritten by
// compaction. The journal is append-only with a fixed set of five record
// types and no queries, so a page cache, transactions or an index would be
// weight without use. Small bodies, where a file per message would cost
// most, are the one place the journal holds data, and only up to 4 KiB.
// And the recovery rules (torn tail versus corruption,
// payload-before-record, refcounts across queues) are the spec's; a general
// engine would hide exactly the decisions this package must make visibly.
// So the package uses the standard library only; CRC32C is hash/crc32's
// Castagnoli table.
package store
