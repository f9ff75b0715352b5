package main

// The broker verb as a shell user runs it: one address line per queue,
// producers and consumers from the library, SIGTERM retires.

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker"
)

// startBroker runs `weida broker args...` and reads its n address lines.
func startBrokerProc(t *testing.T, n int, args ...string) (*proc, []string) {
	t.Helper()
	p := awaitAddress(t, startWeida(t, false, append([]string{"broker"}, args...)...))
	addrs := []string{p.addr}
	for len(addrs) < n {
		line := make(chan string, 1)
		go func(r *bufio.Reader) {
			l, _ := r.ReadString('\n')
			line <- l
		}(p.stdout)
		select {
		case l := <-line:
			if !strings.HasSuffix(l, "\n") {
				t.Fatalf("broker printed %d addresses, want %d; stderr:\n%s", len(addrs), n, p.stderr.text())
			}
			addrs = append(addrs, strings.TrimSuffix(l, "\n"))
		case <-time.After(lineTimeout):
			t.Fatalf("broker printed %d addresses within %v, want %d", len(addrs), lineTimeout, n)
		}
	}
	return p, addrs
}

func TestBrokerServesQueuesAndRetiresOnSIGTERM(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	p, addrs := startBrokerProc(t, 2, "weida://127.0.0.1:0/jobs", "--queue", "/disk:flushed", "--data", t.TempDir())
	if !strings.HasSuffix(addrs[0], "/jobs") || !strings.HasSuffix(addrs[1], "/disk") {
		t.Fatalf("addresses %q, want /jobs then /disk", addrs)
	}
	for i, want := range []uint64{weida.Accepted, weida.Stored} {
		req := clientRuntime(t).Requester(weida.TrustByAddress())
		if err := req.Connect(ctx, addrs[i]); err != nil {
			t.Fatal(err)
		}
		_, meta, err := req.RequestWith(ctx, weida.TransferMeta{}, []byte("job"), 16)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := meta.Achieved(); got != want {
			t.Fatalf("%s confirmed %d, want %d", addrs[i], got, want)
		}
	}
	sub := clientRuntime(t).Subscriber(weida.TrustByAddress())
	if err := sub.Connect(ctx, addrs[0]); err != nil {
		t.Fatal(err)
	}
	if err := sub.Subscribe(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if err := sub.Grant(ctx, 1); err != nil {
		t.Fatal(err)
	}
	body, _, report, err := sub.RecvReporting(ctx, 16)
	if err != nil || string(body) != "job" {
		t.Fatalf("consumer got %q, %v", body, err)
	}
	_ = report.Report(weida.Processed, uint64(len(body)))
	_ = report.Finish()
	code, _, stderr := p.stop(t)
	if code != exitOK {
		t.Fatalf("broker exited %d on SIGTERM, want 0; stderr:\n%s", code, stderr)
	}
	if !regexp.MustCompile(`(?m)^weida: retired: \d+ settled, 0 requeued, 1 held undelivered$`).MatchString(stderr) {
		t.Fatalf("no retire line for the one message left on /disk; stderr:\n%s", stderr)
	}
}

func TestBrokerConfigurationErrors(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"queues": [{"path": "/a", "durabilty": "flushed"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown durability", []string{"--queue", "/a:flushd"}, exitUsage, "unknown durability"},
		{"a stored queue without --data", []string{"--queue", "/a:written"}, exitFailure, "no data directory"},
		{"a typo in the file", []string{"--config", bad}, exitFailure, "durabilty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runWeida(t, nil, append([]string{"broker", "weida://127.0.0.1:0/jobs"}, c.args...)...)
			if r.code != c.code || !strings.Contains(r.stderr, c.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d mentioning %q", r.code, r.stderr, c.code, c.want)
			}
		})
	}
}

// TestBrokerConfigFileKeys checks every key of the configuration file
// reaches broker.Config, segment_bytes included (the crash test relies on
// small segments to roll and purge under SIGKILL).
func TestBrokerConfigFileKeys(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "broker.json")
	text := `{"data": "/var/lib/q", "queue_bytes": 1048576, "max_queues": 4, "max_unsettled": 0,
		"segment_bytes": 4096, "queues": [{"path": "/jobs", "durability": "flushed"}, {"path": "/mail"}]}`
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := readBrokerConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DataDir != "/var/lib/q" || cfg.QueueBytes != 1<<20 || cfg.MaxQueues != 4 ||
		cfg.MaxUnsettled != broker.NeverDeliver || cfg.SegmentBytes != 4096 {
		t.Fatalf("config %+v", cfg)
	}
	want := []broker.QueueConfig{{Path: "/jobs", Durability: broker.Flushed}, {Path: "/mail", Durability: broker.Memory}}
	if len(cfg.Queues) != len(want) || cfg.Queues[0] != want[0] || cfg.Queues[1] != want[1] {
		t.Fatalf("queues %+v, want %+v", cfg.Queues, want)
	}
}
