package access

import (
	"fmt"
	"strings"

	"github.com/weida-go/weida/core/identity"
)

// Action is what a client asks of a queue.
type Action int

const (
	// Produce is admitting a message to the queue.
	Produce Action = iota
	// Consume is subscribing, granting credit, and receiving deliveries.
	Consume
)

// String is "produce" or "consume".
func (a Action) String() string {
	if a == Consume {
		return "consume"
	}
	return "produce"
}

// Client is who asks: the key it proved in the handshake, or none.
type Client struct {
	Key    identity.Fingerprint
	HasKey bool
}

// String is the client's fingerprint, or "anonymous".
func (c Client) String() string {
	if !c.HasKey {
		return Anonymous
	}
	return c.Key.String()
}

type keyRule int

const (
	keysUnlisted keyRule = iota // no list: any key, or none if anonymous is allowed
	keysAny                     // a key is required, any key
	keysListed                  // only the listed keys
)

type keySet map[identity.Fingerprint]struct{}

// entrySet is one compiled permission list.
type entrySet struct {
	everyKey, anonymous bool
	keys                keySet
}

func (s entrySet) matches(c Client) bool {
	if !c.HasKey {
		return s.anonymous
	}
	_, listed := s.keys[c.Key]
	return s.everyKey || listed
}

type queueACL struct{ produce, consume entrySet }

// Policy is a compiled, immutable set of rules. Build one with Compile.
type Policy struct {
	anonymous bool
	keyRule   keyRule
	keys      []identity.Fingerprint // keysListed: who may connect
	keyFile   string
	queues    map[string]*queueACL
}

// Open is the policy of a broker with no access configuration: every
// client the binding admits may use every queue.
func Open() *Policy {
	return &Policy{anonymous: true, queues: map[string]*queueACL{}}
}

// AdmitsAnonymous reports whether clients without a key may connect.
func (p *Policy) AdmitsAnonymous() bool { return p.anonymous }

// Connects reports whether c may hold a connection to the broker at all.
func (p *Policy) Connects(c Client) bool {
	if !c.HasKey {
		return p.anonymous
	}
	if p.keyRule != keysListed {
		return true
	}
	for _, k := range p.keys {
		if k == c.Key {
			return true
		}
	}
	return false
}

// Allows reports whether c may perform a on the queue at path. A client
// that may not connect may do nothing.
func (p *Policy) Allows(c Client, path string, a Action) bool {
	if !p.Connects(c) {
		return false
	}
	acl, restricted := p.queues[path]
	if !restricted {
		return true
	}
	if a == Consume {
		return acl.consume.matches(c)
	}
	return acl.produce.matches(c)
}

// ClientAuth is what the binding's TLS must demand of clients for this
// policy: a listed key (judged against the ListedKeys pin set), any key,
// or nothing. With a list and anonymous clients both admitted, TLS lets
// everyone in and Connects refuses an unlisted key per transfer.
func (p *Policy) ClientAuth() identity.ClientAuth {
	switch {
	case p.anonymous:
		return identity.ClientAnonymousAllowed
	case p.keyRule == keysListed:
		return identity.ClientTrusted
	default:
		return identity.ClientAnyKey
	}
}

// ListedKeys is the list of keys that may connect, nil when there is no
// list.
func (p *Policy) ListedKeys() []identity.Fingerprint {
	if p.keyRule != keysListed {
		return nil
	}
	return p.keys
}

// Describe says in one line which rule the broker runs under, for its
// start-up log.
func (p *Policy) Describe() string {
	who := "any client that proves a key"
	if p.keyRule == keysListed {
		who = fmt.Sprintf("the %d keys listed in %s", len(p.keys), p.keyFile)
	}
	if p.anonymous {
		who += " and anonymous clients"
	} else {
		who += "; anonymous clients are refused"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "access: connections from %s", who)
	if len(p.queues) == 0 {
		b.WriteString("; every queue open to every connected client")
		return b.String()
	}
	for _, path := range sortedKeys(p.queues) {
		acl := p.queues[path]
		fmt.Fprintf(&b, "; %s: produce %s, consume %s", path, acl.produce.describe(), acl.consume.describe())
	}
	return b.String()
}

func (s entrySet) describe() string {
	var parts []string
	if s.everyKey {
		parts = append(parts, "every key")
	} else if len(s.keys) > 0 {
		parts = append(parts, fmt.Sprintf("%d keys", len(s.keys)))
	}
	if s.anonymous {
		parts = append(parts, "anonymous")
	}
	if len(parts) == 0 {
		return "no one"
	}
	return strings.Join(parts, " and ")
}
