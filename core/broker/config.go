package broker

import (
	"log/slog"
	"strings"
	"time"

	"github.com/weida-go/weida/core/broker/access"
	"github.com/weida-go/weida/core/broker/store"
	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/identity"
)

// The broker's bounds (BROKER.md §3). They are a profile of their own,
// apart from per-connection limits, because a queue outlives every
// connection that touches it.
const (
	// DefaultQueueBytes bounds the bytes one queue holds, ready and
	// unsettled together, each message charged with PerMessageOverhead.
	DefaultQueueBytes int64 = 8 << 20
	// DefaultMaxQueues bounds the queues of one broker.
	DefaultMaxQueues = 64
	// DefaultMaxUnsettled bounds the deliveries one subscription may have
	// out without a settling report.
	DefaultMaxUnsettled = 256
	// NeverDeliver as MaxUnsettled is a bound of zero: the queues admit and
	// confirm but deliver nothing (the zero value of MaxUnsettled is the
	// default, so zero itself needs a name).
	NeverDeliver = -1
	// PerMessageOverhead is charged per held message on top of its body,
	// topic and content type, so queue_bytes/256 also caps the count.
	PerMessageOverhead = 256
	// MaxPendingGrants bounds, per queue, the credit grants held for a
	// subscription whose SUBSCRIBE has not arrived yet (oldest evicted).
	MaxPendingGrants = 64
)

// Durability is how far a queue takes a message before it certifies it
// (BROKER.md §13.1). Level 3 (Stored) has one wire value, so a queue
// reports Stored only at the durability it is configured for.
type Durability int

// The durabilities, weakest first.
const (
	// Memory keeps bodies in RAM: the certificate is Accepted, a restart
	// loses the queue, and Stored is never reported.
	Memory Durability = iota
	// Written certifies Stored once the body and its commit record were
	// written to the OS (survives a broker crash, not a power loss).
	Written
	// Flushed certifies Stored once they were fsynced (survives power loss).
	Flushed
)

var durabilityNames = [...]string{Memory: "memory", Written: "written", Flushed: "flushed"}

// String is the configuration spelling: "memory", "written" or "flushed".
func (d Durability) String() string {
	if d >= Memory && d <= Flushed {
		return durabilityNames[d]
	}
	return "unknown"
}

// ParseDurability reads "memory", "written" or "flushed".
func ParseDurability(s string) (Durability, error) {
	for d, name := range durabilityNames {
		if s == name {
			return Durability(d), nil
		}
	}
	return Memory, errs.New(errs.KindRuntime, "broker: unknown durability %q (want memory, written or flushed)", s)
}

// QueueConfig is one queue: its path and how durable its messages are.
type QueueConfig struct {
	Path       string
	Durability Durability
	// replicas is the quorum of a replicated queue's group (the n of the
	// Replicated(n, flushed) it certifies); 0 for a queue of this node
	// alone. Only Config.Cluster makes replicated queues.
	replicas int
}

// ParseQueue reads "PATH" or "PATH:memory|written|flushed" (the CLI's
// --queue). The suffix is split at the last colon; a suffix of lowercase
// letters that names no durability is an error (a typo must not become
// part of the path), anything else after a colon belongs to the path.
func ParseQueue(s string) (QueueConfig, error) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return QueueConfig{Path: s}, nil
	}
	suffix := s[i+1:]
	if d, err := ParseDurability(suffix); err == nil {
		return QueueConfig{Path: s[:i], Durability: d}, nil
	}
	if suffix != "" && strings.Trim(suffix, "abcdefghijklmnopqrstuvwxyz") == "" {
		return QueueConfig{}, errs.New(errs.KindRuntime, "broker: %q: unknown durability %q (want memory, written or flushed)", s, suffix)
	}
	return QueueConfig{Path: s}, nil
}

// Config configures a Broker. The zero value of every bound is its
// default; a configuration the broker cannot honour is refused by New.
type Config struct {
	// Queues are registered in order, each at its path.
	Queues []QueueConfig
	// DataDir holds the persistent queues' store; required when any queue
	// is Written or Flushed, unused otherwise.
	DataDir string
	// QueueBytes bounds one queue's held bytes (default 8 MiB). It also
	// bounds the buffers the queue's admissions in progress read bodies
	// through: at most QueueBytes/64 KiB (at least one) 64 KiB buffers at
	// once, so staging stays within QueueBytes; admissions beyond those
	// read through 4 KiB buffers until one is free. None waits and none is
	// refused for want of a buffer (admission_buffers.go says why).
	QueueBytes int64
	// MaxQueues bounds len(Queues) (default 64).
	MaxQueues int
	// SegmentBytes is where the persistent queues' journal rolls to a new
	// segment (default 64 MiB, store.DefaultSegmentBytes). Settled messages
	// free their disk only when a whole segment is purged, so a smaller
	// value returns space sooner at the cost of more files.
	SegmentBytes int64
	// MaxUnsettled bounds one subscription's deliveries out without a
	// settling report (default 256; NeverDeliver for a bound of zero). Its
	// ceiling is MaxConnectionUnsettled, which also bounds all of one
	// consumer connection's subscriptions together; above it New refuses.
	MaxUnsettled int
	// ReportDeadline bounds how long a report toward a producer waits for
	// the producer's stream credit to open its stream (default 10 s,
	// weida.DefaultReportDeadline; BROKER.md §11); past it the report is
	// abandoned and counted in Stats.ReportsAbandoned.
	ReportDeadline time.Duration
	// OnError, when set, hears what the broker cannot tell a peer: an
	// admission that failed at the store (the producer sees Rejected, or
	// NoReply when the store recorded it but could not make it durable),
	// a body that could not be read back for delivery (quarantined, or
	// retried when the failure may pass). It must not block.
	OnError func(path string, err error)
	// Access is who may use the queues (the "access" section of the JSON
	// configuration): which client keys may connect, and per queue which
	// may produce and which may consume. Nil leaves every queue open to
	// every client the bindings admit. A binding serving the broker must
	// be bound with Broker.BindOptions, which demand of clients' TLS what
	// the rules need.
	Access *access.Rules
	// Loopback says every binding serving the broker binds a loopback
	// address (access.IsLoopbackAddr): anonymous clients are then admitted
	// unless Access.Anonymous says otherwise, and refused without it.
	Loopback bool
	// AccessLog hears each refusal once per key, queue and action (nil:
	// slog.Default()); Stats counts every one.
	AccessLog *slog.Logger
	// Logger hears what the queues do that an operator should know
	// (logging.go): OnError's failures at Error, refused admissions and
	// abandoned reports at Debug (at most ten a second per queue). Nil is
	// silent. Give the runtime the same one through weida.Config.Logger.
	Logger *slog.Logger

	// Cluster, when set, makes this broker a member of a replicated
	// cluster serving the cluster file's queues too (cluster_config.go).
	Cluster *ClusterConfig

	// storeFS is the store's file system in tests (nil: the OS's).
	storeFS store.FS
}

// validated applies the defaults and checks the configuration; it names
// the first problem it finds.
func (c Config) validated() (Config, error) {
	c, err := c.withClusterQueues()
	if err != nil {
		return c, err
	}
	if c.ReportDeadline < 0 {
		return c, errs.New(errs.KindRuntime, "broker config: ReportDeadline must not be negative")
	}
	if c.QueueBytes < 0 || c.MaxQueues < 0 || c.SegmentBytes < 0 || c.MaxUnsettled < NeverDeliver {
		return c, errs.New(errs.KindRuntime, "broker config: QueueBytes, MaxQueues, SegmentBytes and MaxUnsettled must not be negative (NeverDeliver aside)")
	}
	if c.QueueBytes == 0 {
		c.QueueBytes = DefaultQueueBytes
	}
	if c.MaxQueues == 0 {
		c.MaxQueues = DefaultMaxQueues
	}
	switch c.MaxUnsettled {
	case 0:
		c.MaxUnsettled = DefaultMaxUnsettled
	case NeverDeliver:
		c.MaxUnsettled = 0
	}
	if c.MaxUnsettled > MaxConnectionUnsettled {
		return c, errs.New(errs.KindRuntime, "broker config: MaxUnsettled %d is above its ceiling, MaxConnectionUnsettled (%d)", c.MaxUnsettled, MaxConnectionUnsettled)
	}
	if len(c.Queues) > c.MaxQueues {
		return c, errs.New(errs.KindLimitExceeded, "broker config: %d queues, more than max_queues (%d)", len(c.Queues), c.MaxQueues)
	}
	seen := make(map[string]bool, len(c.Queues))
	for _, q := range c.Queues {
		if err := identity.ValidatePath(q.Path); err != nil {
			return c, err
		}
		if q.Durability < Memory || q.Durability > Flushed {
			return c, errs.New(errs.KindRuntime, "broker config: queue %q has unknown durability %d", q.Path, q.Durability)
		}
		if q.Durability != Memory && c.DataDir == "" {
			return c, errs.New(errs.KindRuntime, "broker config: queue %q is %s but no data directory is configured", q.Path, q.Durability)
		}
		if seen[q.Path] {
			return c, errs.New(errs.KindAlreadyRegistered, "broker config: the queue %q is configured twice", q.Path)
		}
		seen[q.Path] = true
	}
	return c, nil
}
