package cluster

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/weida-go/weida/core/broker/store/faultfs"
)

const payloadDir = "/data/raft/q/payload"

func openPayloadsOn(t *testing.T, disk *faultfs.Disk, flushed bool) *Payloads {
	t.Helper()
	p, err := OpenPayloads(disk.FS(), payloadDir, flushed)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// bigBody is a body over the inline bound, distinct per i.
func bigBody(i int) []byte {
	return bytes.Repeat([]byte{byte(i), byte(i >> 8), 0x5a}, (MaxInlineBody+3*i)/3+100)
}

func commitBody(t *testing.T, p *Payloads, body []byte) [32]byte {
	t.Helper()
	d, n, err := writeBody(p, body)
	if err != nil {
		t.Fatal(err)
	}
	if d != sha256.Sum256(body) || n != uint64(len(body)) {
		t.Fatalf("Commit = %x, %d; want %x, %d", d, n, sha256.Sum256(body), len(body))
	}
	return d
}

// writeBody writes body in uneven pieces, as a network stream would.
func writeBody(p *Payloads, body []byte) ([32]byte, uint64, error) {
	b, err := p.NewBody()
	if err != nil {
		return [32]byte{}, 0, err
	}
	for rest := body; len(rest) > 0; {
		n := min(len(rest), 1000)
		if _, err := b.Write(rest[:n]); err != nil {
			b.Abort()
			return [32]byte{}, 0, err
		}
		rest = rest[n:]
	}
	return b.Commit()
}

func readBody(p *Payloads, d [32]byte) ([]byte, error) {
	rc, err := p.Open(d)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

func tmpEntries(t *testing.T, fsys interface {
	ReadDir(string) ([]fs.DirEntry, error)
}) int {
	t.Helper()
	es, err := fsys.ReadDir(filepath.Join(payloadDir, "tmp"))
	if err != nil {
		t.Fatal(err)
	}
	return len(es)
}

func TestPayloadsStoreStreamedBodiesByDigest(t *testing.T) {
	disk := faultfs.New(1)
	p := openPayloadsOn(t, disk, true)
	body := bigBody(1)
	d := commitBody(t, p, body)
	if !p.Has(d) || p.Has(sha256.Sum256([]byte("other"))) {
		t.Fatal("Has does not tell the committed body from another")
	}
	path := filepath.Join(payloadDir, hex.EncodeToString(d[:1]), hex.EncodeToString(d[:]))
	if !disk.Durable(path) {
		t.Fatalf("a flushed group's body at %s is not durable when Commit returns", path)
	}
	if got, err := readBody(p, d); err != nil || !bytes.Equal(got, body) {
		t.Fatalf("Open read %d bytes, %v", len(got), err)
	}
	// The same bytes again: one file, no temp left behind.
	if commitBody(t, p, body) != d || tmpEntries(t, disk.FS()) != 0 {
		t.Fatal("a second commit of the same body left a temp file")
	}
	// A power cut keeps it; a body in progress is gone at the next open.
	b, err := p.NewBody()
	if err != nil {
		t.Fatal(err)
	}
	b.Write(bigBody(2))
	disk.PowerCut()
	fsys := disk.FS()
	if f, err := fsys.OpenFile(filepath.Join(payloadDir, "tmp", "stale"), os.O_CREATE|os.O_WRONLY, 0o600); err != nil {
		t.Fatal(err)
	} else {
		f.Close()
	}
	p = openPayloadsOn(t, disk, true)
	if got, err := readBody(p, d); err != nil || !bytes.Equal(got, body) {
		t.Fatalf("after a power cut Open read %d bytes, %v", len(got), err)
	}
	if n := tmpEntries(t, fsys); n != 0 {
		t.Fatalf("open left %d bodies in progress", n)
	}
}

func TestAWrittenGroupsBodiesAreNotFsynced(t *testing.T) {
	disk := faultfs.New(1)
	p := openPayloadsOn(t, disk, false)
	syncs := 0
	disk.Inject(faultfs.Fault{Op: faultfs.OpSync, Check: func(string) error { syncs++; return nil }})
	disk.Inject(faultfs.Fault{Op: faultfs.OpSyncDir, Check: func(string) error { syncs++; return nil }})
	commitBody(t, p, bigBody(3))
	if syncs != 0 {
		t.Fatalf("a written group's Commit made %d fsyncs", syncs)
	}
}

func TestAPayloadReadChecksItsDigest(t *testing.T) {
	disk := faultfs.New(1)
	p := openPayloadsOn(t, disk, true)
	body := bigBody(4)
	d := commitBody(t, p, body)
	fsys := disk.FS()
	for _, damaged := range [][]byte{append(bytes.Clone(body[:100]), 'x'), append(bytes.Clone(body), 'x'),
		append([]byte{body[0] ^ 1}, body[1:]...)} {
		f, err := fsys.OpenFile(p.path(d), os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(damaged)
		f.Close()
		_, err = readBody(p, d)
		if !errors.Is(err, ErrPayloadCorrupt) || !bytes.Contains([]byte(err.Error()), []byte(hex.EncodeToString(d[:]))) {
			t.Fatalf("reading a damaged body (%d bytes): %v, want ErrPayloadCorrupt naming the digest", len(damaged), err)
		}
	}
}

// Every disk failure of a Commit is an error that leaves neither a
// payload nor a temp file, and a flushed body whose fsync failed is never
// reported committed.
func TestPayloadCommitFaults(t *testing.T) {
	for name, f := range map[string]faultfs.Fault{
		"write":   {Op: faultfs.OpWrite, Path: "/tmp/", Err: syscall.ENOSPC},
		"fsync":   {Op: faultfs.OpSync, Path: "/tmp/", Err: syscall.EIO},
		"rename":  {Op: faultfs.OpRename, Err: syscall.EIO},
		"dirsync": {Op: faultfs.OpSyncDir, Path: "/payload/", Err: syscall.EIO},
	} {
		t.Run(name, func(t *testing.T) {
			disk := faultfs.New(1)
			p := openPayloadsOn(t, disk, true)
			remove := disk.Inject(f)
			body := bigBody(5)
			if _, _, err := writeBody(p, body); err == nil {
				t.Fatal("Commit succeeded on a failing disk")
			}
			remove()
			if n := tmpEntries(t, disk.FS()); n != 0 {
				t.Fatalf("a failed Commit left %d temp files", n)
			}
			// The failure changes nothing for the next attempt.
			commitBody(t, p, body)
		})
	}
}

func TestAnAbortedBodyLeavesNothing(t *testing.T) {
	disk := faultfs.New(1)
	p := openPayloadsOn(t, disk, true)
	b, err := p.NewBody()
	if err != nil {
		t.Fatal(err)
	}
	b.Write(bigBody(8))
	b.Abort()
	if n := tmpEntries(t, disk.FS()); n != 0 || p.Has(sha256.Sum256(bigBody(8))) {
		t.Fatalf("an aborted body left %d temp files", n)
	}
	if _, err := b.Write([]byte("x")); err == nil {
		t.Fatal("a write after Abort succeeded")
	}
	if _, _, err := b.Commit(); err == nil {
		t.Fatal("a Commit after Abort succeeded")
	}
}

// A group's payload store lives in its folder, and a streamed body the
// leader committed goes once the SETTLE of its message is applied.
func TestAGroupsPayloadsFollowItsLog(t *testing.T) {
	tc := startCluster(t, 3, "/jobs")
	tc.waitFor(t, "a leader", func() bool { return tc.leaderOf("/jobs", tc.nodes...) != nil })
	g := tc.leaderOf("/jobs", tc.nodes...).Group("/jobs")
	id := GroupID("/jobs")
	if want := filepath.Join("raft", hex.EncodeToString(id[:]), "payload"); !bytes.HasSuffix([]byte(g.Payloads().root), []byte(want)) {
		t.Fatalf("the payload store is at %s, not under %s", g.Payloads().root, want)
	}
	body := bigBody(9)
	d := commitBody(t, g.Payloads(), body)
	ctx := t.Context()
	res, err := g.Propose(ctx, Entry{Kind: EntryAdmit, Digest: d[:], Length: uint64(len(body))})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := readBody(g.Payloads(), d); err != nil || !bytes.Equal(got, body) {
		t.Fatalf("reading the admitted body: %d bytes, %v", len(got), err)
	}
	if _, err := g.Propose(ctx, Entry{Kind: EntrySettle, Seqs: []uint64{res.(AdmitResult).Seq}}); err != nil {
		t.Fatal(err)
	}
	if g.Payloads().Has(d) {
		t.Fatal("the leader kept a body whose only message is settled")
	}
}
