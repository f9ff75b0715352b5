package broker

import (
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"testing"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/errs"
)

// Persistent queues (BROKER.md §13.3, issue 6 item 2).

func storedQueue(dir string, d Durability) Config {
	return Config{DataDir: dir, Queues: []QueueConfig{{Path: "/jobs", Durability: d}}}
}

func TestAStoredQueueCertifiesStored(t *testing.T) {
	for _, d := range []Durability{Written, Flushed} {
		t.Run(d.String(), func(t *testing.T) {
			tb := startBroker(t, storedQueue(t.TempDir(), d))
			p := newProducer(t, tb.binding.URL("/jobs"))
			level, err := p.send(t, "", []byte("durable"))
			if err != nil {
				t.Fatal(err)
			}
			if level != weida.Stored {
				t.Fatalf("confirm level %d, want Stored (3)", level)
			}
			c := p.pushReporting(t, "", []byte("abc"), weida.Accepted, weida.Stored)
			want := map[uint64]uint64{weida.Accepted: 3, weida.Stored: 3}
			if got := finalReport(t, c); !maps.Equal(got, want) {
				t.Fatalf("final report %v, want %v", got, want)
			}
		})
	}
}

func TestStoredMessagesSurviveARestartWithTheirAttempts(t *testing.T) {
	for _, d := range []Durability{Written, Flushed} {
		t.Run(d.String(), func(t *testing.T) {
			dir := t.TempDir()
			first := startBroker(t, storedQueue(dir, d))
			url := first.binding.URL("/jobs")
			p := newProducer(t, url)
			p.mustSendLevel(t, weida.Stored, "done", []byte("settled before the restart"))
			p.mustSendLevel(t, weida.Stored, "open", []byte("out at the restart"))
			c := newConsumer(t, url, "", 2)
			// Two deliveries ride two streams: either may arrive first.
			for range 2 {
				if got := c.recv(t); string(got.body) == "settled before the restart" {
					got.settle(t)
				} // the other is never reported: it comes back after the restart
			}
			first.await(t, "/jobs", "one settled, one out", func(q *queue) bool {
				for _, d := range q.unsettled {
					return len(q.ready) == 0 && len(q.unsettled) == 1 && d.msg.attempts == 1
				}
				return false
			})
			first.Close()

			second := startBroker(t, storedQueue(dir, d))
			if s := second.stats(t, "/jobs"); s.Ready != 1 || s.MaxAttempts != 1 {
				t.Fatalf("after the restart %+v, want the one unsettled message, attempted once", s)
			}
			again := newConsumer(t, second.binding.URL("/jobs"), "", 1).recv(t)
			if string(again.body) != "out at the restart" || again.attempt != 2 {
				t.Fatalf("after the restart got %q attempt %d, want the unsettled message at attempt 2", again.body, again.attempt)
			}
			if topic, _ := again.meta.Topic(); topic != "open" {
				t.Fatalf("the recovered message lost its topic: %q", topic)
			}
			again.settle(t)
		})
	}
}

func TestAnUnusableDataDirectoryFailsAtConstruction(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-directory")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	rt := newRuntime(t)
	_, err := New(rt, storedQueue(file, Flushed))
	if kindOf(err) != weida.KindIO {
		t.Fatalf("New on a file as data directory: %v, want an Io error", err)
	}
	if _, err := rt.Listener().Acceptor("/jobs"); err != nil {
		t.Fatalf("the failed broker left its path claimed: %v", err)
	}
}

// failingKeeper is a store whose disk is full.
type failingKeeper struct{ memKeeper }

var errDiskFull = errs.New(errs.KindIO, "store: writing body: no space left on device")

func (*failingKeeper) newBody() (bodySink, error) { return &failingSink{}, nil }

type failingSink struct{}

func (*failingSink) Write([]byte) (int, error) { return 0, errDiskFull }
func (*failingSink) abort()                    {}

func TestAStoreFailureAtAdmissionIsAnErrorNeverASilentDrop(t *testing.T) {
	var mu sync.Mutex
	var heard []error
	cfg := queues("/jobs")
	cfg.OnError = func(path string, err error) {
		mu.Lock()
		defer mu.Unlock()
		if path == "/jobs" {
			heard = append(heard, err)
		}
	}
	tb := startBroker(t, cfg)
	q := tb.byPath["/jobs"]
	_ = q.call(ctxFor(t), func() { q.keep = &failingKeeper{} })
	p := newProducer(t, tb.binding.URL("/jobs"))
	if _, err := p.send(t, "", []byte("no room on disk")); !errors.Is(err, weida.ErrRejected) {
		t.Fatalf("send: %v, want Rejected", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(heard) != 1 || !errors.Is(heard[0], errDiskFull) {
		t.Fatalf("OnError heard %v, want the disk-full error once", heard)
	}
	if s := q.budget.charged(); s != 0 {
		t.Fatalf("%d bytes still charged after the failure", s)
	}
}

var _ io.Writer = (*failingSink)(nil)
