package main

import (
	"context"
	"strings"
	"testing"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker"
)

func TestTourPlaysEverySceneAsSpecified(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), tourTimeout)
	defer cancel()
	var out strings.Builder
	if err := runTour(ctx, &out); err != nil {
		t.Fatalf("the tour failed: %v\n%s", err, out.String())
	}
	for _, sc := range scenes {
		if !strings.Contains(out.String(), "== "+sc.title+"\n") {
			t.Errorf("the tour did not tell the scene %q:\n%s", sc.title, out.String())
		}
	}
}

func TestQueueSceneAgainstAnInProcessBroker(t *testing.T) {
	cases := []struct {
		name       string
		durability broker.Durability
		stored     bool   // what the scene is told to expect
		wantErr    string // "" for a scene that must pass
	}{
		{"a flushed queue certifies STORED", broker.Flushed, true, ""},
		{"a written queue certifies STORED", broker.Written, true, ""},
		{"a memory queue certifies ACCEPTED only", broker.Memory, false, ""},
		{"STORED where none was expected fails the scene", broker.Flushed, false,
			"ended at ACCEPTED 14, STORED 14, PROCESSED 14, want ACCEPTED 14, PROCESSED 14"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), tourTimeout)
			defer cancel()
			b, url := startBroker(t, c.durability)
			var out strings.Builder
			err := runQueue(ctx, &out, queueScene{url: url, stored: c.stored})
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("the scene ended with %v, want an error naming %q\n%s", err, c.wantErr, out.String())
				}
				return
			}
			if err != nil {
				t.Fatalf("the scene failed: %v\n%s", err, out.String())
			}
			for _, job := range queueJobs {
				for _, level := range []string{"ACCEPTED", "STORED", "PROCESSED"} {
					line := `producer hears for "` + job + `": ` + level + " at 14"
					if want := level != "STORED" || c.stored; strings.Contains(out.String(), line) != want {
						t.Errorf("told %q: %v, want %v:\n%s", line, !want, want, out.String())
					}
				}
			}
			s, err := b.Stats(ctx, "/jobs")
			if err != nil {
				t.Fatal(err)
			}
			if s.Ready != 0 || s.Unsettled != 0 || s.Delivered != uint64(len(queueJobs)) {
				t.Fatalf("the queue after the scene: %+v, want every job delivered once and settled", s)
			}
		})
	}
}

// startBroker serves one queue at /jobs on loopback, as `weida broker`
// would, and returns it with the queue's address.
func startBroker(t *testing.T, d broker.Durability) (*broker.Broker, string) {
	t.Helper()
	rt, err := weida.NewRuntime(weida.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Shutdown)
	id, err := weida.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	binding, err := rt.Listener().BindQUIC("127.0.0.1:0", id)
	if err != nil {
		t.Fatal(err)
	}
	b, err := broker.New(rt, broker.Config{
		Queues:  []broker.QueueConfig{{Path: "/jobs", Durability: d}},
		DataDir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	go func() { _ = b.Serve(context.Background()) }()
	return b, binding.URL("/jobs")
}

func TestArguments(t *testing.T) {
	cases := []struct {
		args    []string
		wantErr string
	}{
		{nil, ""},
		{[]string{"queue", "weida://x/jobs"}, ""},
		{[]string{"queue", "--memory", "weida://x/jobs"}, ""},
		{[]string{"queue"}, "queue takes one ADDRESS, got 0 arguments"},
		{[]string{"queue", "a", "b"}, "queue takes one ADDRESS, got 2 arguments"},
		{[]string{"pair"}, `unknown scene "pair"`},
	}
	for _, c := range cases {
		_, err := parseArgs(c.args)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%q: %v", c.args, err)
		case c.wantErr != "" && (err == nil || err.Error() != c.wantErr):
			t.Errorf("%q: %v, want %q", c.args, err, c.wantErr)
		}
	}
}
