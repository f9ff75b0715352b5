package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	weida "github.com/weida-go/weida/core"
)

// busQuietSpell is how long each member listens, after its greetings, for
// a copy that should not exist (its own). A check of absence can only
// wait; loopback delivers in milliseconds.
const busQuietSpell = 250 * time.Millisecond

// busMember is one member of the tour's bus.
type busMember struct {
	*party
	m *weida.BusMember
}

// tourBus connects three members to one another and has each greet the
// bus once: every member receives the two other greetings, never its own.
func tourBus(ctx context.Context, s story) error {
	var members []busMember
	defer func() {
		for _, m := range members {
			m.close()
		}
	}()
	for _, name := range []string{"a", "b", "c"} {
		p, err := newServingParty(name)
		if err != nil {
			return err
		}
		m, err := p.binding.Bus("/bus", weida.TrustByAddress())
		if err != nil {
			p.close()
			return err
		}
		members = append(members, busMember{p, m})
	}
	for _, from := range members {
		for _, to := range members {
			if from.m == to.m {
				continue
			}
			if err := from.m.Connect(ctx, to.binding.URL("/bus")); err != nil {
				return fmt.Errorf("bus: %s connecting to %s: %w", from.name, to.name, err)
			}
		}
	}
	s.say("members a, b and c, each connected to the other two")

	for _, m := range members {
		greeting := "hello from " + m.name
		reached, err := m.m.Send(ctx, []byte(greeting))
		if err != nil {
			return fmt.Errorf("bus: %s sending: %w", m.name, err)
		}
		s.say("%s sends %q: reached %d members", m.name, greeting, reached)
		if reached != len(members)-1 {
			return fmt.Errorf("bus: %s reached %d members, want %d", m.name, reached, len(members)-1)
		}
	}
	for _, m := range members {
		if err := busExpectOthers(ctx, s, m, members); err != nil {
			return err
		}
	}
	return nil
}

// busExpectOthers reads m's two greetings, checks they are the others',
// and that nothing more (its own) arrives.
func busExpectOthers(ctx context.Context, s story, m busMember, members []busMember) error {
	var want, got []string
	for _, other := range members {
		if other.m != m.m {
			want = append(want, "hello from "+other.name)
		}
	}
	for range want {
		payload, _, err := m.m.Recv(ctx, 1<<10)
		if err != nil {
			return fmt.Errorf("bus: %s receiving: %w", m.name, err)
		}
		got = append(got, string(payload))
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		return fmt.Errorf("bus: %s received %q, want %q", m.name, got, want)
	}
	quiet, stop := context.WithTimeout(ctx, busQuietSpell)
	defer stop()
	if extra, _, err := m.m.Recv(quiet, 1<<10); err == nil {
		return fmt.Errorf("bus: %s received %q beyond the others' greetings", m.name, extra)
	}
	s.say("%s received [%s] and nothing of its own", m.name, strings.Join(got, ", "))
	return nil
}
