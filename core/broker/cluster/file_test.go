package cluster

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"github.com/weida-go/weida/core/broker/access"
	"github.com/weida-go/weida/core/identity"
)

func key(i int) identity.Fingerprint { return identity.Fingerprint(sha256.Sum256([]byte{byte(i)})) }

func member(i int) string {
	return fmt.Sprintf(`{"url": "weida://%s@127.0.0.1:%d", "raft": "127.0.0.1:%d"}`, key(i), 7440+i, 8440+i)
}

func fileOf(members []string, queues string) string {
	return `{"members": [` + strings.Join(members, ",") + `], "queues": ` + queues + `}`
}

var oneQueue = `[{"path": "/jobs", "durability": "flushed"}, {"path": "/mail", "durability": "written"}]`

func members(n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, member(i))
	}
	return out
}

func TestParseAcceptsThreeAndFive(t *testing.T) {
	for _, n := range []int{3, 5} {
		f, err := Parse([]byte(fileOf(members(n), oneQueue)))
		if err != nil {
			t.Fatalf("%d members: %v", n, err)
		}
		if len(f.Members) != n || f.Quorum() != n/2+1 {
			t.Fatalf("%d members: got %d, quorum %d", n, len(f.Members), f.Quorum())
		}
		if f.Members[1].Key != key(2) || f.Members[1].Raft != "127.0.0.1:8442" || f.Members[1].URL.Port != 7442 {
			t.Fatalf("member 2 read as %+v", f.Members[1])
		}
		if !f.Queues[0].Flushed || f.Queues[1].Flushed || f.Queues[1].Path != "/mail" {
			t.Fatalf("queues read as %+v", f.Queues)
		}
	}
}

func TestParseRefusesWithTheReason(t *testing.T) {
	dupKey := strings.Replace(member(1), "127.0.0.1:7441", "127.0.0.1:7449", 1)
	dupKey = strings.Replace(dupKey, "8441", "8449", 1)
	cases := []struct{ name, text, want string }{
		{"two members", fileOf(members(2), oneQueue), "2 members: a cluster has 3 or 5"},
		{"four members", fileOf(members(4), oneQueue), "4 members: a cluster has 3 or 5"},
		{"one member", fileOf(members(1), oneQueue), "1 members"},
		{"a URL without a key", fileOf(append(members(2), `{"url": "weida://127.0.0.1:7443", "raft": "127.0.0.1:1"}`), oneQueue), "member 3: url"},
		{"a URL with a path", fileOf(append(members(2), fmt.Sprintf(`{"url": "weida://%s@127.0.0.1:7000/jobs", "raft": "127.0.0.1:1"}`, key(3))), oneQueue), "member 3: url"},
		{"a raft address without a port", fileOf(append(members(2), fmt.Sprintf(`{"url": "weida://%s@127.0.0.1:7000", "raft": "127.0.0.1"}`, key(3))), oneQueue), `member 3: raft address "127.0.0.1"`},
		{"the same key twice", fileOf(append(members(2), dupKey), oneQueue), "member 3: its key " + key(1).String() + " is member 1's too"},
		{"the same raft address twice", fileOf(append(members(2), fmt.Sprintf(`{"url": "weida://%s@127.0.0.1:7000", "raft": "127.0.0.1:8441"}`, key(3))), oneQueue), "member 3: its raft address 127.0.0.1:8441 is member 1's too"},
		{"a memory queue", fileOf(members(3), `[{"path": "/jobs", "durability": "memory"}]`), `durability "memory"; a replicated queue is written or flushed`},
		{"no queue", fileOf(members(3), `[]`), "no queues"},
		{"a queue twice", fileOf(members(3), `[{"path": "/a", "durability": "written"}, {"path": "/a", "durability": "flushed"}]`), `queue 2: "/a" is configured twice`},
		{"an unknown key", strings.Replace(fileOf(members(3), oneQueue), `"queues"`, `"queue"`, 1), "unknown field"},
	}
	for _, tc := range cases {
		_, err := Parse([]byte(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

func TestSelfNamesANonMember(t *testing.T) {
	f, err := Parse([]byte(fileOf(members(3), oneQueue)))
	if err != nil {
		t.Fatal(err)
	}
	if m, err := f.Self(key(3)); err != nil || m.Raft != "127.0.0.1:8443" {
		t.Fatalf("Self(member 3) = %+v, %v", m, err)
	}
	_, err = f.Self(key(9))
	if err == nil || !strings.Contains(err.Error(), key(9).String()+" is not a member") || !strings.Contains(err.Error(), key(1).String()) {
		t.Fatalf("Self(stranger) = %v", err)
	}
}

func TestDigestIsTheFilesMeaning(t *testing.T) {
	a, err := Parse([]byte(fileOf(members(3), oneQueue)))
	if err != nil {
		t.Fatal(err)
	}
	spaced, err := Parse([]byte(strings.ReplaceAll(fileOf(members(3), oneQueue), ", ", ",\n    ")))
	if err != nil {
		t.Fatal(err)
	}
	if a.Digest() != spaced.Digest() {
		t.Fatal("spacing changed the digest")
	}
	other, err := Parse([]byte(fileOf(members(3), `[{"path": "/jobs", "durability": "written"}, {"path": "/mail", "durability": "written"}]`)))
	if err != nil {
		t.Fatal(err)
	}
	if a.Digest() == other.Digest() {
		t.Fatal("a different durability kept the digest")
	}
	if err := a.CheckPeerDigest(key(2), spaced.Digest()); err != nil {
		t.Fatal(err)
	}
	if err := a.CheckPeerDigest(key(2), other.Digest()); err == nil || !strings.Contains(err.Error(), other.Digest()) {
		t.Fatalf("a differing peer: %v", err)
	}
}

func TestTrustFileIsAKeyFile(t *testing.T) {
	f, err := Parse([]byte(fileOf(members(5), oneQueue)))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := access.ParseKeyList(f.TrustFile(), "trust")
	if err != nil || len(keys) != 5 || keys[4] != key(5) {
		t.Fatalf("the trust file reads back as %v, %v", keys, err)
	}
}

// The cluster file carries the same access rules a broker's configuration
// does, checked the same way, and two members with different rules read
// different files.
func TestTheClusterFileCarriesAccessRules(t *testing.T) {
	withRules := func(rules string) string {
		return strings.TrimSuffix(fileOf(members(3), oneQueue), "}") + `, "access": ` + rules + `}`
	}
	f, err := Parse([]byte(withRules(`{"anonymous": false, "queues": {"/jobs": {"produce": ["*"], "consume": ["` + key(1).String() + `"]}}}`)))
	if err != nil {
		t.Fatal(err)
	}
	if f.Access == nil || f.Access.Queues["/jobs"].Consume[0] != key(1).String() {
		t.Fatalf("access read as %+v", f.Access)
	}
	plain, _ := Parse([]byte(fileOf(members(3), oneQueue)))
	other, err := Parse([]byte(withRules(`{"anonymous": false, "queues": {"/jobs": {"produce": ["*"]}}}`)))
	if err != nil {
		t.Fatal(err)
	}
	if f.Digest() == plain.Digest() || f.Digest() == other.Digest() {
		t.Fatal("different access rules kept the digest")
	}
	if _, err := Parse([]byte(withRules(`{"queues": {"/nope": {"produce": ["*"]}}}`))); err == nil || !strings.Contains(err.Error(), `"/nope" is not a queue`) {
		t.Fatalf("a rule for a queue the cluster does not serve: %v", err)
	}
	if _, err := Parse([]byte(withRules(`{"queues": {"/jobs": {"consume": ["sha256:12"]}}}`))); err == nil || !strings.Contains(err.Error(), `consume[0]`) {
		t.Fatalf("a malformed fingerprint: %v", err)
	}
}
