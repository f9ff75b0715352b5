package main

// Broker access control from the shell: keygen, a broker that lists keys,
// send --identity, and SIGHUP.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// keygen runs `weida keygen` and returns the identity's path and the
// fingerprint it printed.
func keygen(t *testing.T, dir, name string) (string, string) {
	t.Helper()
	path := filepath.Join(dir, name)
	r := runWeida(t, nil, "keygen", path)
	fp := strings.TrimSpace(string(r.stdout))
	if r.code != exitOK || !regexp.MustCompile(`^sha256:[0-9a-f]{64}$`).MatchString(fp) {
		t.Fatalf("keygen: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	return path, fp
}

// writeAccessConfig writes a broker configuration whose /jobs may be
// produced to by producers only.
func writeAccessConfig(t *testing.T, path string, producers ...string) {
	t.Helper()
	list := `"` + strings.Join(producers, `", "`) + `"`
	if len(producers) == 0 {
		list = ""
	}
	text := fmt.Sprintf(`{"access": {"clients": "any", "anonymous": false, "queues": {"/jobs": {"produce": [%s], "consume": ["*"]}}}}`, list)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A key from `weida keygen` is owner-only on disk; `weida send --identity`
// with it succeeds at a broker that lists it and exits 3 (rejected) at one
// that does not; an anonymous send to a broker that demands a key fails
// the handshake. After SIGHUP the same broker serves the new list, and a
// reload with a bad file keeps it, naming the file.
func TestCLIKeygenSendIdentityToBroker(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	listed, listedFP := keygen(t, dir, "listed.pem")
	other, otherFP := keygen(t, dir, "other.pem")
	if info, err := os.Stat(listed); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the identity file: %v, mode %v; want 0600", err, info.Mode().Perm())
	}
	if r := runWeida(t, nil, "keygen", listed); r.code == exitOK || !strings.Contains(r.stderr, "listed.pem") {
		t.Fatalf("keygen over an existing identity: exit %d, stderr %q; want a refusal naming it", r.code, r.stderr)
	}

	config := filepath.Join(dir, "broker.json")
	writeAccessConfig(t, config, listedFP)
	p, addrs := startBrokerProc(t, 1, "weida://127.0.0.1:0/jobs", "--config", config)
	p.expectMatch(t, regexp.MustCompile(`^weida: access: connections from any client that proves a key; anonymous clients are refused; /jobs: produce 1 keys, consume every key$`))
	big := filepath.Join(dir, "big") // 1.5 MiB, beyond a stream window: the refusal arrives before the receipt could; three fit the queue
	if err := os.WriteFile(big, make([]byte, 3<<19), 0o600); err != nil {
		t.Fatal(err)
	}
	send := func(args ...string) result {
		return runWeida(t, nil, append(append([]string{"send"}, args...), addrs[0], big)...)
	}
	if r := send("--identity", listed); r.code != exitOK {
		t.Fatalf("send with the listed key: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := send("--identity", other); r.code != exitRejected {
		t.Fatalf("send with an unlisted key: exit %d, stderr %q; want %d", r.code, r.stderr, exitRejected)
	}
	p.expectMatch(t, regexp.MustCompile(`access: refused.*client=`+otherFP+`.*queue=/jobs action=produce`))
	if r := send(); r.code == exitOK || r.code == exitRejected {
		t.Fatalf("an anonymous send: exit %d, stderr %q; want the handshake refused", r.code, r.stderr)
	}

	writeAccessConfig(t, config, otherFP)
	_ = p.cmd.Process.Signal(syscall.SIGHUP)
	p.expectMatch(t, regexp.MustCompile(`^weida: reloaded; access: .*/jobs: produce 1 keys`))
	if r := send("--identity", other); r.code != exitOK {
		t.Fatalf("after the reload, the newly listed key: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := send("--identity", listed); r.code != exitRejected {
		t.Fatalf("after the reload, the key taken off the list: exit %d; want %d", r.code, exitRejected)
	}

	if err := os.WriteFile(config, []byte("{\"access\": {\n\"queues\": {\"/jobs\": {\"produce\": [\"sha256:beef\"]}}}}"), 0o600); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Process.Signal(syscall.SIGHUP)
	p.expectMatch(t, regexp.MustCompile(`^weida: reload refused, the access rules in force stay: .*broker\.json:[0-9]+: broker config: access\.queues\["/jobs"\]\.produce\[0\]`))
	if err := os.WriteFile(config, []byte("{\"access\":\n {\"clients\": 7}}"), 0o600); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Process.Signal(syscall.SIGHUP)
	p.expectMatch(t, regexp.MustCompile(`^weida: reload refused, the access rules in force stay: the broker configuration .*broker\.json:2: `))
	if r := send("--identity", other); r.code != exitOK {
		t.Fatalf("after two refused reloads: exit %d, stderr %q", r.code, r.stderr)
	}
	if code, _, stderr := p.stop(t); code != exitOK {
		t.Fatalf("broker exit %d; stderr:\n%s", code, stderr)
	}
}

// A broker refuses at start a permission naming a queue it does not serve,
// and a key file with a malformed line, naming the file and the line.
func TestCLIBrokerRefusesBadAccessAtStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	config := filepath.Join(dir, "broker.json")
	if err := os.WriteFile(config, []byte("{\"access\": {\"queues\": {\n  \"/nope\": {}}}}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runWeida(t, nil, "broker", "weida://127.0.0.1:0/jobs", "--config", config); r.code == exitOK || !strings.Contains(r.stderr, config+`:2: access.queues: "/nope" is not a queue of this broker`) {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	// A malformed entry is named by its line too.
	entry := "{\"access\": {\"queues\": {\"/jobs\": {\n  \"produce\": [\"*\",\n    \"sha256:12\"]}}}}"
	if err := os.WriteFile(config, []byte(entry), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runWeida(t, nil, "broker", "weida://127.0.0.1:0/jobs", "--config", config); r.code == exitOK || !strings.Contains(r.stderr, config+`:3: access.queues["/jobs"].produce[1]: `) {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	keys := filepath.Join(dir, "clients.keys")
	if err := os.WriteFile(keys, []byte("# ops\nsha256:12\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runWeida(t, nil, "broker", "weida://127.0.0.1:0/jobs", "--clients", keys); r.code == exitOK || !strings.Contains(r.stderr, keys+":2: ") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}
