package cluster

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/weida-go/weida/core/broker/access"
	"github.com/weida-go/weida/core/identity"
)

// pathSet is the queue paths a file names.
type pathSet map[string]bool

func (p pathSet) sorted() []string {
	out := make([]string, 0, len(p))
	for path := range p {
		out = append(out, path)
	}
	slices.Sort(out)
	return out
}

// maxFileBytes bounds the cluster file read into memory.
const maxFileBytes = 1 << 20

// Member is one node of the cluster.
type Member struct {
	// Key is the node's identity: the fingerprint its client URL names.
	Key identity.Fingerprint
	// URL is the client address, "weida://sha256:<key>@host:port".
	URL identity.Address
	// Raft is the "host:port" the node replicates over (UDP).
	Raft string
}

// Queue is one replicated queue: its path and its durability.
type Queue struct {
	Path string
	// Flushed is true for "flushed" (fsync before certifying), false for
	// "written".
	Flushed bool
}

// File is a checked cluster file.
type File struct {
	Members []Member
	Queues  []Queue
	// Access is who may use the cluster's queues, in the form and with the
	// meaning of a broker's "access" section (core/broker/access); nil
	// when the file has none. Every member serves the same rules.
	Access     *access.Rules
	accessJSON []byte // the rules re-encoded (map keys sorted), for the digest
	digest     [sha256.Size]byte
}

// fileJSON is the file as written:
//
//	{"members": [{"url": "weida://sha256:…@10.0.0.1:7443", "raft": "10.0.0.1:7444"}, …],
//	 "queues":  [{"path": "/jobs", "durability": "flushed"}]}
type fileJSON struct {
	Members []struct {
		URL  string `json:"url"`
		Raft string `json:"raft"`
	} `json:"members"`
	Queues []struct {
		Path       string `json:"path"`
		Durability string `json:"durability"`
	} `json:"queues"`
	Access *access.Rules `json:"access"`
}

// ReadFile reads and checks the cluster file at path.
func ReadFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cluster file: %w", err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("cluster file %s: %w", path, err)
	}
	if len(raw) > maxFileBytes {
		return nil, fmt.Errorf("cluster file %s is larger than %d bytes", path, maxFileBytes)
	}
	file, err := Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("cluster file %s: %w", path, err)
	}
	return file, nil
}

// Parse checks a cluster file's content. Unknown keys are refused, so a
// typo is an error and not a silent default.
func Parse(raw []byte) (*File, error) {
	var in fileJSON
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	if n := len(in.Members); n != 3 && n != 5 {
		return nil, fmt.Errorf("%d members: a cluster has 3 or 5 (2 of 2 tolerates no failure, 4 tolerates no more than 3)", n)
	}
	f := &File{}
	keys, clients, rafts := map[identity.Fingerprint]int{}, map[string]int{}, map[string]int{}
	for i, m := range in.Members {
		member, err := parseMember(m.URL, m.Raft)
		if err != nil {
			return nil, fmt.Errorf("member %d: %w", i+1, err)
		}
		for _, dup := range []struct {
			seen map[string]int
			what string
			key  string
		}{{clients, "client address", member.URL.HostPort()}, {rafts, "raft address", member.Raft}} {
			if j, ok := dup.seen[dup.key]; ok {
				return nil, fmt.Errorf("member %d: its %s %s is member %d's too", i+1, dup.what, dup.key, j)
			}
			dup.seen[dup.key] = i + 1
		}
		if j, ok := keys[member.Key]; ok {
			return nil, fmt.Errorf("member %d: its key %s is member %d's too", i+1, member.Key, j)
		}
		keys[member.Key] = i + 1
		f.Members = append(f.Members, member)
	}
	if len(in.Queues) == 0 {
		return nil, fmt.Errorf("no queues: a cluster serves at least one replicated queue")
	}
	paths := pathSet{}
	for i, q := range in.Queues {
		if err := identity.ValidatePath(q.Path); err != nil {
			return nil, fmt.Errorf("queue %d: %w", i+1, err)
		}
		if paths[q.Path] {
			return nil, fmt.Errorf("queue %d: %q is configured twice", i+1, q.Path)
		}
		paths[q.Path] = true
		switch q.Durability {
		case "written", "flushed":
		default:
			return nil, fmt.Errorf("queue %d (%s): durability %q; a replicated queue is written or flushed", i+1, q.Path, q.Durability)
		}
		f.Queues = append(f.Queues, Queue{Path: q.Path, Flushed: q.Durability == "flushed"})
	}
	if in.Access != nil {
		// Checked as a broker checks its own (queues named must exist, every
		// entry well formed); the key file, if any, is read where it runs.
		noKeys := func(string) ([]identity.Fingerprint, error) { return nil, nil }
		if _, err := access.Compile(*in.Access, paths.sorted(), false, noKeys); err != nil {
			return nil, err
		}
		f.Access = in.Access
		f.accessJSON, _ = json.Marshal(in.Access) // for the digest: every member serves the same rules
	}
	f.digest = f.canonicalDigest()
	return f, nil
}

func parseMember(url, raft string) (Member, error) {
	// A member's URL is an address without an endpoint path; the parser
	// wants one, so it reads the URL with a placeholder path.
	rest, _ := strings.CutPrefix(url, string(identity.SchemeQUIC)+"://")
	if strings.Contains(rest, "/") {
		return Member{}, fmt.Errorf("url %q names a path; a member's url is weida://sha256:<key>@host:port", url)
	}
	addr, err := identity.ParseAddress(url + "/member")
	if err != nil {
		return Member{}, fmt.Errorf("url %q: %w", url, err)
	}
	if addr.Scheme != identity.SchemeQUIC || !addr.HasFingerprint {
		return Member{}, fmt.Errorf("url %q must be weida://sha256:<key>@host:port: a member is known by its key", url)
	}
	addr.Path = ""
	host, port, err := net.SplitHostPort(raft)
	if err != nil || host == "" {
		return Member{}, fmt.Errorf("raft address %q must be host:port", raft)
	}
	if p, err := strconv.ParseUint(port, 10, 16); err != nil || p == 0 {
		return Member{}, fmt.Errorf("raft address %q: port %q is not 1-65535", raft, port)
	}
	return Member{Key: addr.Fingerprint, URL: addr, Raft: raft}, nil
}

// canonicalDigest hashes what the file means, not how it is spelled, so
// two members whose files differ only in spacing or key order agree.
// Member and queue order count: they are part of what the file says.
func (f *File) canonicalDigest() [sha256.Size]byte {
	var b strings.Builder
	b.WriteString("weida-cluster/0\n")
	for _, m := range f.Members {
		fmt.Fprintf(&b, "member %s %s %s\n", m.Key, m.URL.HostPort(), m.Raft)
	}
	for _, q := range f.Queues {
		fmt.Fprintf(&b, "queue %d:%s %v\n", len(q.Path), q.Path, q.Flushed)
	}
	if f.accessJSON != nil {
		fmt.Fprintf(&b, "access %s\n", f.accessJSON)
	}
	return sha256.Sum256([]byte(b.String()))
}

// Digest is the hex SHA-256 of the file's meaning, which members exchange
// when they connect.
func (f *File) Digest() string { return hex.EncodeToString(f.digest[:]) }

// Self returns the member whose key is key, or an error naming the key and
// the members when this node is not one of them.
func (f *File) Self(key identity.Fingerprint) (Member, error) {
	i := slices.IndexFunc(f.Members, func(m Member) bool { return m.Key == key })
	if i < 0 {
		keys := make([]string, len(f.Members))
		for j, m := range f.Members {
			keys[j] = m.Key.String()
		}
		return Member{}, fmt.Errorf("this node's key %s is not a member of the cluster (members: %s)", key, strings.Join(keys, ", "))
	}
	return f.Members[i], nil
}

// Quorum is how many members make a majority.
func (f *File) Quorum() int { return len(f.Members)/2 + 1 }

// TrustFile is the members' keys in the key-file format (one fingerprint
// per line), for clients that should trust any member of this cluster.
func (f *File) TrustFile() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# the members of weida cluster %s\n", f.Digest()[:16])
	for _, m := range f.Members {
		fmt.Fprintf(&b, "%s  # %s\n", m.Key, m.URL.HostPort())
	}
	return b.Bytes()
}

// CheckPeerDigest compares a peer's digest with this node's, naming both
// when they differ.
func (f *File) CheckPeerDigest(peer identity.Fingerprint, digest string) error {
	if digest != f.Digest() {
		return fmt.Errorf("member %s read a different cluster file (digest %s, ours %s): refusing to replicate with it", peer, digest, f.Digest())
	}
	return nil
}
