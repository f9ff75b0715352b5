package main

import (
	"context"
	"errors"
	"fmt"

	weida "github.com/weida-go/weida/core"
)

// pairIntruderBytes is how much the second peer tries to send: beyond the
// bound end's 1 MiB stream window, so the refusal surely reaches it.
const pairIntruderBytes = 8 << 20

// tourPair binds a pair, lets one peer own it and trade a message each way,
// and shows a second peer refused while the first is live.
func tourPair(ctx context.Context, s story) error {
	bound, err := newServingParty("bound end")
	if err != nil {
		return err
	}
	defer bound.close()
	boundEnd, err := bound.binding.Pair("/pair")
	if err != nil {
		return err
	}
	url := bound.binding.URL("/pair")
	s.say("bound end serves %s", short(url))

	owner, err := newParty("dialling end")
	if err != nil {
		return err
	}
	defer owner.close()
	dialling := owner.rt.Pair(weida.TrustByAddress())
	if err := dialling.Connect(ctx, url); err != nil {
		return fmt.Errorf("pair: connect: %w", err)
	}
	if err := pairTrade(ctx, s, dialling, boundEnd, "ping", "dialling end → bound end"); err != nil {
		return err
	}
	if err := pairTrade(ctx, s, boundEnd, dialling, "pong", "bound end → dialling end"); err != nil {
		return err
	}

	intruder, err := newParty("second peer")
	if err != nil {
		return err
	}
	defer intruder.close()
	if err := pairIntrude(ctx, s, intruder, url); err != nil {
		return err
	}
	return pairTrade(ctx, s, dialling, boundEnd, "still mine", "the first peer still owns the pair")
}

// pairTrade sends msg from one end and reads it at the other.
func pairTrade(ctx context.Context, s story, from, to *weida.Paired, msg, what string) error {
	if err := from.Send(ctx, []byte(msg)); err != nil {
		return fmt.Errorf("pair: send %q: %w", msg, err)
	}
	got, _, err := to.Recv(ctx, 1<<10)
	if err != nil {
		return fmt.Errorf("pair: receive %q: %w", msg, err)
	}
	if string(got) != msg {
		return fmt.Errorf("pair: received %q, want %q", got, msg)
	}
	s.say("%s: %q", what, got)
	return nil
}

// pairIntrude has a second peer write to the owned pair until the refusal
// arrives; a transfer that goes through, or another error, is the failure.
func pairIntrude(ctx context.Context, s story, intruder *party, url string) error {
	p := intruder.rt.Pair(weida.TrustByAddress())
	if err := p.Connect(ctx, url); err != nil {
		return fmt.Errorf("pair: the second peer's connect: %w", err)
	}
	out, err := p.Open(ctx, weida.TransferMeta{})
	if err != nil {
		return fmt.Errorf("pair: the second peer's open: %w", err)
	}
	defer out.Cancel() // after the refusal, a no-op
	chunk := make([]byte, 64<<10)
	for written := 0; written < pairIntruderBytes; written += len(chunk) {
		_, err := out.Write(chunk)
		switch {
		case errors.Is(err, weida.ErrLimitExceeded):
			s.say("a second peer is refused while the first is live: %v", err)
			return nil
		case err != nil:
			return fmt.Errorf("pair: the second peer was refused with %w, want LimitExceeded", err)
		}
	}
	return fmt.Errorf("pair: a second peer wrote %d bytes to an owned pair unrefused", pairIntruderBytes)
}
