// Package all lists the systems the benchmarks compare, weida first, and
// the persistent-queue stacks.
package all

import (
	"fmt"
	"strings"

	"github.com/weida-go/weida/core/broker"

	"github.com/weida-go/weida/tests/bench/internal/harness"
	"github.com/weida-go/weida/tests/bench/internal/system"
	"github.com/weida-go/weida/tests/bench/internal/system/jetstreamsys"
	"github.com/weida-go/weida/tests/bench/internal/system/natssys"
	"github.com/weida-go/weida/tests/bench/internal/system/quicsys"
	"github.com/weida-go/weida/tests/bench/internal/system/weidasys"
	"github.com/weida-go/weida/tests/bench/internal/system/zmqsys"
)

// Systems is every system, weida first (the report's ratios are weida's
// figure over each other system's), raw quic-go with a qlog tracer and
// raw quic-go doing the least weida's design requires beside raw quic-go.
func Systems() []system.System {
	return []system.System{weidasys.System{}, quicsys.System{}, quicsys.System{Traced: true}, quicsys.System{Floor: true},
		natssys.System{}, zmqsys.System{}}
}

// SystemRatios are the quotients each section of the run's systems shows
// beside the glance table's weida-over-each: how much of weida's gap to
// raw quic-go is quic-go building its qlog events (the only way weida
// learns its transport receipts), how much the rest of what weida's design
// requires (the floor: framing, the hand-off to the application's
// goroutine, stream credit held until read), and how much is weida's own.
func SystemRatios() []harness.Ratio {
	raw, traced := quicsys.System{}.Name(), quicsys.System{Traced: true}.Name()
	floor := quicsys.System{Floor: true}.Name()
	weida := weidasys.System{}.Name()
	return []harness.Ratio{{Of: weida, Over: raw}, {Of: weida, Over: traced}, {Of: weida, Over: floor},
		{Of: traced, Over: raw}, {Of: floor, Over: raw}}
}

// ByName finds a system by its Name, ignoring case.
func ByName(name string) (system.System, error) {
	return byName(Systems(), name, "system")
}

// QueueByName finds a queue stack by its Name, ignoring case.
func QueueByName(name string) (system.QueueSystem, error) {
	return byName(Queues(), name, "queue stack")
}

func byName[S interface{ Name() string }](all []S, name, what string) (S, error) {
	var names []string
	for _, s := range all {
		if strings.EqualFold(s.Name(), name) {
			return s, nil
		}
		names = append(names, s.Name())
	}
	var none S
	return none, fmt.Errorf("no %s %q; they are %s", what, name, strings.Join(names, ", "))
}

// Queues is every persistent-queue stack at every storage setting, weida's
// first.
func Queues() []system.QueueSystem {
	return []system.QueueSystem{
		weidasys.Queue{Durability: broker.Memory}, weidasys.Queue{Durability: broker.Written},
		weidasys.Queue{Durability: broker.Flushed},
		jetstreamsys.Queue{Storage: jetstreamsys.Memory}, jetstreamsys.Queue{Storage: jetstreamsys.File},
		jetstreamsys.Queue{Storage: jetstreamsys.FileSyncAlways}, quicsys.Queue{},
	}
}

// QueueRatios pairs each weida queue with JetStream at the storage
// setting that promises the same: memory with memory, Written (the OS has
// it) with file storage at its default sync interval, Flushed (fsynced
// before the confirm) with sync_always; and weida Written with the wire's
// ceiling, quic-go exchange (how close it is to what its wire allows).
func QueueRatios() []harness.Ratio {
	pairs := []struct{ weida, other system.QueueSystem }{
		{weidasys.Queue{Durability: broker.Memory}, jetstreamsys.Queue{Storage: jetstreamsys.Memory}},
		{weidasys.Queue{Durability: broker.Written}, jetstreamsys.Queue{Storage: jetstreamsys.File}},
		{weidasys.Queue{Durability: broker.Flushed}, jetstreamsys.Queue{Storage: jetstreamsys.FileSyncAlways}},
		{weidasys.Queue{Durability: broker.Written}, quicsys.Queue{}},
	}
	out := make([]harness.Ratio, len(pairs))
	for i, p := range pairs {
		out[i] = harness.Ratio{Of: p.weida.Name(), Over: p.other.Name()}
	}
	return out
}
