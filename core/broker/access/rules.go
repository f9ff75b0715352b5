package access

import (
	"fmt"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/weida-go/weida/core/identity"
)

// AnyKey as Rules.Clients admits every client that proves a key, with no
// list (mutual TLS in the SSH manner).
const AnyKey = "any"

// Entries a permission list may hold besides fingerprints and @groups.
const (
	// Everyone matches every client that proved a key.
	Everyone = "*"
	// Anonymous matches a client that presented no key (admitted only when
	// the connection rule admits anonymous clients).
	Anonymous = "anonymous"
)

// Rules is the access configuration as written (the "access" section of a
// broker's JSON configuration):
//
//	{"clients": "/etc/weida/clients.keys",
//	 "anonymous": false,
//	 "groups": {"workers": ["sha256:…", "sha256:…"]},
//	 "queues": {"/jobs": {"produce": ["sha256:…"], "consume": ["@workers"]}}}
//
// A queue that "queues" does not name is open to every client the
// connection rule admits; a queue it names may be produced to and consumed
// from only by the entries of its lists (an absent list admits no one).
type Rules struct {
	// Clients is the path of a key file (one fingerprint per line) whose
	// keys may connect, or AnyKey, or empty for no list.
	Clients string `json:"clients"`
	// Anonymous says whether clients that present no key may connect.
	// Unset, they may only when the broker binds a loopback address.
	Anonymous *bool `json:"anonymous"`
	// Groups names lists of fingerprints that permissions cite as @name.
	Groups map[string][]string `json:"groups"`
	// Queues holds each restricted queue's permissions, by path.
	Queues map[string]QueueRules `json:"queues"`
}

// QueueRules lists who may produce to and who may consume from one queue:
// fingerprints, @group names, Everyone ("*") or Anonymous.
type QueueRules struct {
	Produce []string `json:"produce"`
	Consume []string `json:"consume"`
}

// IsLoopbackAddr reports whether a bind address ("host:port") accepts
// connections only from this machine. A name other than "localhost" is
// judged as not loopback: binding it may reach further.
func IsLoopbackAddr(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// Compile checks rules against the broker's queues and bind address and
// returns the policy they describe. readKeys reads the Clients key file
// (ReadKeyFile in production). Every error names where the problem is.
func Compile(rules Rules, queues []string, loopback bool, readKeys func(path string) ([]identity.Fingerprint, error)) (*Policy, error) {
	p := &Policy{queues: make(map[string]*queueACL)}
	p.anonymous = loopback
	if rules.Anonymous != nil {
		p.anonymous = *rules.Anonymous
	}
	switch rules.Clients {
	case "":
	case AnyKey:
		p.keyRule = keysAny
	default:
		keys, err := readKeys(rules.Clients)
		if err != nil {
			return nil, err
		}
		p.keyRule, p.keys, p.keyFile = keysListed, keys, rules.Clients
	}
	groups, err := compileGroups(rules.Groups)
	if err != nil {
		return nil, err
	}
	known := make(map[string]bool, len(queues))
	for _, q := range queues {
		known[q] = true
	}
	for _, path := range sortedKeys(rules.Queues) {
		if !known[path] {
			return nil, ruleError([]string{"queues", path}, "access.queues", fmt.Errorf("%q is not a queue of this broker", path))
		}
		qr := rules.Queues[path]
		acl := &queueACL{}
		if acl.produce, err = compileEntries(qr.Produce, groups, []string{"queues", path, "produce"}); err != nil {
			return nil, err
		}
		if acl.consume, err = compileEntries(qr.Consume, groups, []string{"queues", path, "consume"}); err != nil {
			return nil, err
		}
		p.queues[path] = acl
	}
	return p, nil
}

func compileGroups(raw map[string][]string) (map[string]keySet, error) {
	groups := make(map[string]keySet, len(raw))
	for _, name := range sortedKeys(raw) {
		if name == "" || strings.ContainsAny(name, "@* \t") {
			return nil, ruleError([]string{"groups", name}, "access.groups", fmt.Errorf("%q is not a usable group name", name))
		}
		set := keySet{}
		for i, s := range raw[name] {
			fp, err := identity.ParseFingerprint(s)
			if err != nil {
				return nil, ruleError([]string{"groups", name, strconv.Itoa(i)}, "", err)
			}
			set[fp] = struct{}{}
		}
		groups[name] = set
	}
	return groups, nil
}

func compileEntries(entries []string, groups map[string]keySet, list []string) (entrySet, error) {
	set := entrySet{keys: keySet{}}
	for i, e := range entries {
		switch {
		case e == Everyone:
			set.everyKey = true
		case e == Anonymous:
			set.anonymous = true
		case strings.HasPrefix(e, "@"):
			g, ok := groups[e[1:]]
			if !ok {
				return set, ruleError(append(slices.Clip(list), strconv.Itoa(i)), "", fmt.Errorf("no group is named %q", e[1:]))
			}
			for fp := range g {
				set.keys[fp] = struct{}{}
			}
		default:
			fp, err := identity.ParseFingerprint(e)
			if err != nil {
				return set, ruleError(append(slices.Clip(list), strconv.Itoa(i)), "",
					fmt.Errorf("%w (an entry is a fingerprint, @group, %q or %q)", err, Everyone, Anonymous))
			}
			set.keys[fp] = struct{}{}
		}
	}
	return set, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// RuleError is a rule Compile cannot mean. Path locates it in the "access"
// section as JSON keys and array indexes (e.g. queues, /jobs, produce, 1),
// so a caller holding the file can name its line; the message names it
// as access.queues["/jobs"].produce[1].
type RuleError struct {
	Path  []string
	where string
	Err   error
}

func (e *RuleError) Error() string { return e.where + ": " + e.Err.Error() }

func (e *RuleError) Unwrap() error { return e.Err }

// ruleError locates err at path; where overrides the printed location.
func ruleError(path []string, where string, err error) *RuleError {
	if where == "" {
		var b strings.Builder
		b.WriteString("access")
		for i, p := range path {
			switch {
			case i == 0:
				b.WriteString("." + p)
			case i == 2 && path[0] == "queues":
				b.WriteString("." + p)
			case isIndex(p) && (path[0] == "groups" && i == 2 || path[0] == "queues" && i == 3):
				b.WriteString("[" + p + "]")
			default:
				b.WriteString(fmt.Sprintf("[%q]", p))
			}
		}
		where = b.String()
	}
	return &RuleError{Path: path, where: where, Err: err}
}

func isIndex(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}
