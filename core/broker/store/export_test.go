package store

import "io"

// SetBodySink makes b's bytes go to w instead of its temp file once it
// spills, to simulate a failing disk.
func SetBodySink(b *Body, w io.Writer) { b.wrapOut = func(io.Writer) io.Writer { return w } }

// Housekeep runs one round of q's writer now (write the pending records,
// purge, remove a full batch of freed payloads), so a test can look at the
// disk without waiting for the goroutine.
func Housekeep(q *Queue) error { return q.housekeep() }

// QueueDir is the directory of the queue for path under the data dir.
func QueueDir(dataDir string, path []byte) string {
	return dataDir + "/queue/" + queueID(path)
}

// PayloadPath is where the payload with digest d lives under the data dir.
func PayloadPath(dataDir string, d [32]byte) string {
	return newPayloads(OSFS{}, dataDir+"/payload").path(d)
}

// SettleFrame is the journal frame of a SETTLE record for seq.
func SettleFrame(seq uint64) []byte { return appendRecord(nil, &record{typ: recSettle, seq: seq}) }
