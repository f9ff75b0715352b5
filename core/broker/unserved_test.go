package broker

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker/store"
)

// A Flushed queue whose certified payload is corrupt at a restart is left
// unserved — producers hear Rejected, its data stays as found — while the
// broker's other queues serve as usual. Found by an outside review: the
// whole broker refused to start, taking its healthy queues down with it.
func TestACorruptQueueIsUnservedAndTheOthersServe(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{DataDir: dir, Queues: []QueueConfig{{Path: "/flushed", Durability: Flushed}, {Path: "/written", Durability: Written}}}
	var mu sync.Mutex
	var heard []string
	cfg.OnError = func(path string, err error) {
		mu.Lock()
		heard = append(heard, path+": "+err.Error())
		mu.Unlock()
	}
	first := startBroker(t, cfg)
	body := bytes.Repeat([]byte("certified "), 1000) // beyond the inline bound: a payload file
	newProducer(t, first.binding.URL("/flushed")).mustSendLevel(t, weida.Stored, "", body)
	first.Close()
	digest := sha256.Sum256(body)
	name := hex.EncodeToString(digest[:])
	if err := os.WriteFile(filepath.Join(dir, "payload", name[:2], name), make([]byte, len(body)), 0o600); err != nil {
		t.Fatal(err)
	}

	second := startBroker(t, cfg)
	s := second.stats(t, "/flushed")
	if !errors.Is(s.Unserved, store.ErrCorrupt) {
		t.Fatalf("the corrupt queue's Stats.Unserved = %v, want a corrupt store", s.Unserved)
	}
	mu.Lock()
	told := strings.Join(heard, "\n")
	mu.Unlock()
	if !strings.Contains(told, "/flushed: ") || !strings.Contains(told, name) {
		t.Fatalf("OnError heard %q, want the corrupt queue named with its payload", told)
	}
	if _, err := newProducer(t, second.binding.URL("/flushed")).send(t, "", []byte("more")); !errors.Is(err, weida.ErrRejected) {
		t.Fatalf("an admission to the unserved queue: %v, want Rejected", err)
	}
	url := second.binding.URL("/written")
	newProducer(t, url).mustSendLevel(t, weida.Stored, "", []byte("still served"))
	got := newConsumer(t, url, "", 1).recv(t)
	if string(got.body) != "still served" {
		t.Fatalf("the healthy queue delivered %q", got.body)
	}
	got.settle(t)
	if s := second.stats(t, "/written"); s.Unserved != nil {
		t.Fatalf("the healthy queue reads as unserved: %v", s.Unserved)
	}
}
