package weida

import (
	"context"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/wire"
)

// Cluster addresses (docs/CLUSTER.md, "Reaching the leader"). Connect takes,
// besides one URL:
//
//   - a list of member URLs separated by commas, all naming the same path:
//     weida://sha256:<a>@10.0.0.1:7443/jobs,weida://sha256:<b>@10.0.0.2:7443/jobs
//   - a portless weida://[sha256:<key>@]name/path, whose name is resolved
//     (A/AAAA) at every search to at most MaxResolvedAddresses addresses on
//     DefaultClusterPort. The DNS answer only proposes: the endpoint's trust
//     (a pin per member key) decides whom the handshake accepts.
//
// Such a slot connects to the queue's leader, found by asking the members
// the leader query, and finds it again when it is lost or says NOT_LEADER.

// ClusterAddress joins member URLs into the cluster address Connect takes.
func ClusterAddress(members ...string) string { return strings.Join(members, ",") }

// DefaultClusterPort is the port of a portless cluster address.
const DefaultClusterPort = 7443

// MaxResolvedAddresses bounds the addresses a portless name proposes.
const MaxResolvedAddresses = 8

// maxClusterMembers bounds a listed cluster address (a cluster has 3 or 5
// members; the list may name spares).
const maxClusterMembers = 16

// lookupIPAddr resolves a portless cluster name; tests replace it.
var lookupIPAddr = net.DefaultResolver.LookupIPAddr

// clusterPort is DefaultClusterPort; tests replace it.
var clusterPort uint16 = DefaultClusterPort

// clusterView is what a slot that reaches a replicated queue knows of its
// cluster: the members it may ask, the keys its caller named and the
// highest term it saw. A slot gets one when it is given a cluster address
// or first hears NOT_LEADER. term, hasTerm and next are guarded by the
// dialer's mu; the rest is fixed when the view is made.
type clusterView struct {
	members []Address // as the caller gave them; nil for a portless name
	dns     *Address  // the portless name (its Port already the cluster port); nil for a list
	named   []Fingerprint
	term    uint64
	hasTerm bool
	next    int // where the next search starts among the members
}

// leaderTarget is a leader to dial: addr, and when addr had to drop the
// key the hint named (it is judged by the endpoint's trust), the key the
// handshake must prove.
type leaderTarget struct {
	addr   Address
	key    Fingerprint
	hasKey bool
}

// parseClusterAddress reads a list or a portless name; ok is false for
// one plain URL, which connect parses as before.
func parseClusterAddress(url string) (*clusterView, Address, bool, error) {
	if strings.Contains(url, ",") {
		v, first, err := parseMemberList(url)
		return v, first, true, err
	}
	if a, ok := portless(url); ok {
		named := []Fingerprint(nil)
		if a.HasFingerprint {
			named = append(named, a.Fingerprint)
		}
		return &clusterView{dns: &a, named: named}, a, true, nil
	}
	return nil, Address{}, false, nil
}

func parseMemberList(url string) (*clusterView, Address, error) {
	parts := strings.Split(url, ",")
	if len(parts) > maxClusterMembers {
		return nil, Address{}, errs.New(errs.KindInvalidAddress, "invalid cluster address: %d member URLs, at most %d", len(parts), maxClusterMembers)
	}
	v := &clusterView{}
	for _, part := range parts {
		a, err := identity.ParseAddress(strings.TrimSpace(part))
		if err != nil {
			return nil, Address{}, err
		}
		if a.Scheme != identity.SchemeQUIC {
			return nil, Address{}, errs.New(errs.KindInvalidAddress, "invalid cluster address: member %s is not a weida:// (QUIC) URL", a)
		}
		if len(v.members) > 0 && a.Path != v.members[0].Path {
			return nil, Address{}, errs.New(errs.KindInvalidAddress, "invalid cluster address: member %s names path %q, the first names %q", a, a.Path, v.members[0].Path)
		}
		v.members = append(v.members, a)
		if a.HasFingerprint {
			v.named = append(v.named, a.Fingerprint)
		}
	}
	return v, v.members[0], nil
}

// portless parses weida://[fp@]name/path, a QUIC URL without a port.
func portless(url string) (Address, bool) {
	rest, ok := strings.CutPrefix(url, string(identity.SchemeQUIC)+"://")
	if !ok {
		return Address{}, false
	}
	slash := strings.IndexByte(rest, '/')
	if slash < 0 {
		return Address{}, false
	}
	authority, path := rest[:slash], rest[slash:]
	host := authority[strings.LastIndexByte(authority, '@')+1:]
	if host == "" || strings.Contains(host, ":") || strings.HasPrefix(host, "[") {
		return Address{}, false // has a port (or is an IPv6 literal, which needs one)
	}
	a, err := identity.ParseAddress(string(identity.SchemeQUIC) + "://" + authority + ":" + strconv.Itoa(int(clusterPort)) + path)
	return a, err == nil
}

// clusterOfLocked returns s's view, making one from its URL when it has
// none yet (a plain URL that turned out to be a cluster member).
func (s *slot) clusterOfLocked() *clusterView {
	if s.cluster == nil {
		v := &clusterView{members: []Address{s.addr}}
		if s.addr.HasFingerprint {
			v.named = append(v.named, s.addr.Fingerprint)
		} else if s.pin != (Fingerprint{}) {
			v.named = append(v.named, s.pin)
		}
		s.cluster = v
	}
	return s.cluster
}

// stale reports whether a hint of term is older than one v saw; a fresh
// term is remembered.
func (v *clusterView) stale(term uint64, hasTerm bool) bool {
	if !hasTerm {
		return false
	}
	if v.hasTerm && term < v.term {
		return true
	}
	v.term, v.hasTerm = term, true
	return false
}

// candidates is whom a search asks, starting after the last one asked.
// The name of a portless address is resolved here, so call it without the
// dialer's lock; what it reads of v is fixed when v is made, but for next.
func (v *clusterView) candidates(ctx context.Context, next int) ([]Address, error) {
	members := v.members
	if v.dns != nil {
		ips, err := lookupIPAddr(ctx, v.dns.Host)
		if err != nil {
			return nil, errs.Wrap(errs.KindNotConnected, err, "cluster name "+v.dns.Host+" did not resolve")
		}
		members = nil
		for _, ip := range ips[:min(len(ips), MaxResolvedAddresses)] {
			a := *v.dns
			a.Host = ip.IP.String()
			members = append(members, a)
		}
	}
	if len(members) == 0 {
		return nil, errs.New(errs.KindNotConnected, "the cluster address proposes no member")
	}
	start := next % len(members)
	return append(slices.Clone(members[start:]), members[:start]...), nil
}

// answerNaming is a leader query's answer as the NOT_LEADER it amounts
// to: the cause target wraps when the query, not a refusal, named the
// leader.
func answerNaming(a wire.LeaderAnswer) error {
	return &errs.NotLeader{Leader: a.Leader, Term: a.Term, HasTerm: true}
}

// target judges a leader hint (a URL naming the queue) under the caller's
// trust: a key the caller named in its own URLs is dialled as named; any
// other key must pass the endpoint's trust (pins, anchors), so with no
// trust configured it is Untrusted, never dialled, wrapping cause (what
// named it: the NOT_LEADER refusal, or a leader query's answer as
// answerNaming puts it, so errors.As finds the leader either way). path
// is the slot's.
func (v *clusterView) target(hint, path string, trust Trust, cause error) (*leaderTarget, error) {
	a, err := identity.ParseAddress(hint)
	if err != nil || a.Scheme != identity.SchemeQUIC {
		return nil, errs.New(errs.KindProtocol, "the cluster named the leader %q, which is not a weida:// URL", hint)
	}
	a.Path = path
	if a.HasFingerprint && slices.Contains(v.named, a.Fingerprint) {
		return &leaderTarget{addr: a}, nil
	}
	if trust.IsEmpty() {
		e := errs.New(errs.KindUntrusted,
			"the cluster named the leader %s, whose key is not among the %d this endpoint was given, and no trust (pin, anchor) is configured", a, len(v.named))
		e.Err = cause
		return nil, e
	}
	t := &leaderTarget{addr: a, key: a.Fingerprint, hasKey: a.HasFingerprint}
	t.addr.Fingerprint, t.addr.HasFingerprint = Fingerprint{}, false // the trust decides
	return t, nil
}
