package access

import (
	"bytes"
	"crypto/sha256"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weida-go/weida/core/identity"
)

func key(name string) identity.Fingerprint { return identity.Fingerprint(sha256.Sum256([]byte(name))) }

func keyed(name string) Client { return Client{Key: key(name), HasKey: true} }

func noKeyFile(path string) ([]identity.Fingerprint, error) {
	panic("no key file expected, got " + path)
}

func TestKeyFileFormat(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "clients.keys")
	text := "# producers\n" + key("a").String() + "  # alice\n\n   " + key("b").String() + "\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	keys, err := ReadKeyFile(path)
	if err != nil || len(keys) != 2 || keys[0] != key("a") || keys[1] != key("b") {
		t.Fatalf("ReadKeyFile = %v, %v", keys, err)
	}
	bad := []struct{ text, want string }{
		{key("a").String() + "\nsha256:12\n", "clients.keys:2: "},
		{"\n\nSHA256:" + strings.Repeat("0", 64) + "\n", "clients.keys:3: "},
		{key("a").String() + "\n" + key("a").String() + "\n", "clients.keys:2: " + key("a").String() + " is listed already on line 1"},
		{key("a").String() + " alice\n", "clients.keys:1: "},
	}
	for _, tc := range bad {
		_, err := ParseKeyList([]byte(tc.text), "clients.keys")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseKeyList(%q) = %v, want an error containing %q", tc.text, err, tc.want)
		}
	}
	if _, err := ReadKeyFile(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("a missing key file: %v", err)
	}
}

func TestCompileRefusesWhatItCannotMean(t *testing.T) {
	queues := []string{"/jobs", "/mail"}
	cases := []struct {
		name  string
		rules Rules
		want  string
	}{
		{"unknown queue", Rules{Queues: map[string]QueueRules{"/job": {Produce: []string{Everyone}}}}, `"/job" is not a queue of this broker`},
		{"unknown group", Rules{Queues: map[string]QueueRules{"/jobs": {Consume: []string{"@workers"}}}}, `access.queues["/jobs"].consume[0]: no group is named "workers"`},
		{"bad fingerprint", Rules{Queues: map[string]QueueRules{"/jobs": {Produce: []string{Everyone, "sha256:beef"}}}}, `access.queues["/jobs"].produce[1]`},
		{"bad group member", Rules{Groups: map[string][]string{"w": {"alice"}}}, `access.groups["w"][0]`},
		{"bad group name", Rules{Groups: map[string][]string{"a b": nil}}, `"a b" is not a usable group name`},
	}
	for _, tc := range cases {
		_, err := Compile(tc.rules, queues, false, noKeyFile)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

func TestAnonymousDefaultsToLoopbackOnly(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want bool
	}{{"127.0.0.1:7443", true}, {"[::1]:7443", true}, {"localhost:0", true}, {"0.0.0.0:7443", false}, {"[::]:7443", false}, {"broker.example:7443", false}, {"10.1.2.3:1", false}} {
		if got := IsLoopbackAddr(tc.addr); got != tc.want {
			t.Errorf("IsLoopbackAddr(%q) = %v", tc.addr, got)
		}
	}
	off, on := false, true
	for _, tc := range []struct {
		loopback  bool
		anonymous *bool
		want      bool
	}{{true, nil, true}, {false, nil, false}, {false, &on, true}, {true, &off, false}} {
		p, err := Compile(Rules{Anonymous: tc.anonymous}, nil, tc.loopback, noKeyFile)
		if err != nil {
			t.Fatal(err)
		}
		if p.Connects(Client{}) != tc.want || p.AdmitsAnonymous() != tc.want {
			t.Errorf("loopback %v, anonymous %v: anonymous admitted %v, want %v", tc.loopback, tc.anonymous, p.Connects(Client{}), tc.want)
		}
		if !p.Connects(keyed("k")) {
			t.Error("without a list, every key connects")
		}
	}
}

func TestPermissions(t *testing.T) {
	rules := Rules{
		Clients: "clients.keys",
		Groups:  map[string][]string{"workers": {key("w1").String(), key("w2").String()}},
		Queues: map[string]QueueRules{
			"/jobs": {Produce: []string{key("p").String()}, Consume: []string{"@workers"}},
			"/logs": {Produce: []string{Everyone}, Consume: []string{Anonymous, key("p").String()}},
		},
	}
	listed := []identity.Fingerprint{key("p"), key("w1"), key("w2"), key("stranger-on-no-queue")}
	p, err := Compile(rules, []string{"/jobs", "/logs", "/open"}, true, func(string) ([]identity.Fingerprint, error) { return listed, nil })
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		client Client
		path   string
		action Action
		want   bool
	}{
		{keyed("p"), "/jobs", Produce, true},
		{keyed("p"), "/jobs", Consume, false},
		{keyed("w1"), "/jobs", Consume, true},
		{keyed("w2"), "/jobs", Produce, false},
		{keyed("unlisted"), "/jobs", Produce, false}, // not in the key file
		{keyed("unlisted"), "/open", Produce, false}, // not even an open queue
		{keyed("stranger-on-no-queue"), "/open", Consume, true},
		{keyed("w1"), "/logs", Produce, true}, // * is every connected key
		{Client{}, "/logs", Produce, false},   // but not anonymous
		{Client{}, "/logs", Consume, true},    // anonymous named explicitly
		{Client{}, "/open", Produce, true},    // loopback: anonymous connects
		{keyed("w1"), "/logs", Consume, false},
	}
	for _, tc := range cases {
		if got := p.Allows(tc.client, tc.path, tc.action); got != tc.want {
			t.Errorf("%v %s %s: %v, want %v", tc.client, tc.action, tc.path, got, tc.want)
		}
	}
	if p.ClientAuth() != identity.ClientAnonymousAllowed {
		t.Errorf("a list with anonymous admitted must let TLS admit both: %v", p.ClientAuth())
	}
	desc := p.Describe()
	for _, want := range []string{"the 4 keys listed in clients.keys", "anonymous clients", "/jobs: produce 1 keys, consume 2 keys", "/logs: produce every key, consume 1 keys and anonymous"} {
		if !strings.Contains(desc, want) {
			t.Errorf("Describe() = %q, lacks %q", desc, want)
		}
	}
}

func TestClientAuthFollowsTheRules(t *testing.T) {
	off := false
	keys := func(string) ([]identity.Fingerprint, error) { return []identity.Fingerprint{key("a")}, nil }
	for _, tc := range []struct {
		rules Rules
		want  identity.ClientAuth
	}{
		{Rules{Anonymous: &off}, identity.ClientAnyKey},
		{Rules{Anonymous: &off, Clients: AnyKey}, identity.ClientAnyKey},
		{Rules{Anonymous: &off, Clients: "f"}, identity.ClientTrusted},
		{Rules{Clients: "f"}, identity.ClientAnonymousAllowed}, // loopback default
	} {
		p, err := Compile(tc.rules, nil, true, keys)
		if err != nil {
			t.Fatal(err)
		}
		if p.ClientAuth() != tc.want {
			t.Errorf("%+v: %v, want %v", tc.rules, p.ClientAuth(), tc.want)
		}
	}
}

func TestGuardCountsEveryRefusalAndLogsEachOnce(t *testing.T) {
	var logs bytes.Buffer
	p, err := Compile(Rules{Queues: map[string]QueueRules{"/jobs": {Produce: []string{key("p").String()}}}}, []string{"/jobs"}, true, noKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	g := NewGuard(p, slog.New(slog.NewTextHandler(&logs, nil)))
	for range 5 {
		if g.Check(keyed("x"), "/jobs", Produce) {
			t.Fatal("x may not produce")
		}
		if g.Check(keyed("x"), "/jobs", Consume) {
			t.Fatal("nobody may consume")
		}
	}
	if !g.Check(keyed("p"), "/jobs", Produce) {
		t.Fatal("p may produce")
	}
	if got := g.Refusals("/jobs"); got != (Refusals{Produce: 5, Consume: 5}) {
		t.Fatalf("Refusals = %+v", got)
	}
	if n := strings.Count(logs.String(), "\n"); n != 2 {
		t.Fatalf("%d log lines, want one per client, queue and action:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), key("x").String()) || !strings.Contains(logs.String(), "action=consume") {
		t.Fatalf("the log does not name the key and the action:\n%s", logs.String())
	}
}

func TestGuardLogIsBounded(t *testing.T) {
	var logs bytes.Buffer
	p, _ := Compile(Rules{Queues: map[string]QueueRules{"/q": {}}}, []string{"/q"}, true, noKeyFile)
	g := NewGuard(p, slog.New(slog.NewTextHandler(&logs, nil)))
	for i := range maxLoggedRefusals + 100 {
		g.Check(Client{Key: identity.Fingerprint(sha256.Sum256([]byte{byte(i), byte(i >> 8), byte(i >> 16)})), HasKey: true}, "/q", Produce)
	}
	if n := strings.Count(logs.String(), "\n"); n != maxLoggedRefusals+1 {
		t.Fatalf("%d log lines, want %d and one saying the rest are counted only", n, maxLoggedRefusals+1)
	}
	if got := g.Refusals("/q").Produce; got != maxLoggedRefusals+100 {
		t.Fatalf("counted %d refusals", got)
	}
}

func TestGuardReplaceChangesChecksAndPins(t *testing.T) {
	off := false
	compile := func(keys ...identity.Fingerprint) *Policy {
		p, err := Compile(Rules{Anonymous: &off, Clients: "f"}, nil, false, func(string) ([]identity.Fingerprint, error) { return keys, nil })
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	g := NewGuard(compile(key("a")), nil)
	if !g.Check(keyed("a"), "/q", Produce) || g.Check(keyed("b"), "/q", Produce) {
		t.Fatal("before the reload only a may use the broker")
	}
	next := compile(key("b"))
	if !g.SameMode(next) {
		t.Fatal("two key lists need the same TLS mode")
	}
	g.Replace(next)
	if g.Check(keyed("a"), "/q", Produce) || !g.Check(keyed("b"), "/q", Produce) {
		t.Fatal("after the reload only b may use the broker")
	}
	if g.SameMode(Open()) {
		t.Fatal("an open policy admits anonymous clients: another TLS mode")
	}
}
