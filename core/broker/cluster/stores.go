package cluster

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	bolt "go.etcd.io/bbolt"
)

// snapshotsRetained is how many snapshots a group keeps on disk: the newest
// serves followers that fall behind; one older survives a torn newest.
const snapshotsRetained = 2

// GroupStores are one Raft group's durable stores, in its own folder
// (DATA/raft/<queue-id>/): the log and stable store in raft.db (bbolt),
// snapshots beside it.
type GroupStores struct {
	Log       raft.LogStore
	Stable    raft.StableStore
	Snapshots raft.SnapshotStore
	bolt      *raftboltdb.BoltStore
}

// OpenGroupStores opens (creating) the stores of the group whose folder is
// dir. flushed fsyncs every log write before Raft counts it stored; a
// written queue's log skips the fsync (its messages survive a crash of the
// process, not of the machine: the level it certifies says so).
func OpenGroupStores(dir string, flushed bool, log hclog.Logger) (*GroupStores, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("raft stores %s: %w", dir, err)
	}
	b, err := raftboltdb.New(raftboltdb.Options{Path: filepath.Join(dir, "raft.db"), NoSync: !flushed,
		BoltOptions: &bolt.Options{Timeout: time.Second, NoFreelistSync: true}})
	if err != nil {
		return nil, fmt.Errorf("raft log %s: %w", dir, err)
	}
	var out io.Writer = io.Discard
	if log != nil {
		out = log.StandardWriter(&hclog.StandardLoggerOptions{InferLevels: true})
	}
	snaps, err := raft.NewFileSnapshotStore(dir, snapshotsRetained, out)
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("raft snapshots %s: %w", dir, err)
	}
	return &GroupStores{Log: b, Stable: b, Snapshots: snaps, bolt: b}, nil
}

// Close closes the log and stable store.
func (s *GroupStores) Close() error { return s.bolt.Close() }
