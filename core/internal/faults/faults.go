// Package faults holds the points where a test widens a race window that
// is too narrow to reach from outside, such as a peer's refusal arriving
// between two calls of one send. Every point is unset in a program that is
// not a test, and only packages under core/ can set one.
package faults

import "sync/atomic"

// SendNowQueued, when set, runs after a transport SendNow queued a
// transfer's bytes and before it queues the FIN, for every such send in
// the process: it is handed the payload, to pick the test's own send, and
// the stream's Stopped channel, closed once the peer stops the stream.
var SendNowQueued atomic.Pointer[func(payload []byte, stopped <-chan struct{})]

// LocalFINQueued, when set, runs after a local transport's Finish queued
// the FIN and before it takes its lock again: a cancel then comes after
// the transfer got out whole.
var LocalFINQueued atomic.Pointer[func()]

// WholeFinished, when set, runs after a one-way message written the waiting
// way (its payload did not go out in one non-waiting write) was finished,
// before its Send returns: the caller's context may end there, once the
// message is wholly sent.
var WholeFinished atomic.Pointer[func(payload []byte)]

// Set installs f at point p until the returned function restores what was
// there.
func Set[F any](p *atomic.Pointer[F], f F) (restore func()) {
	old := p.Swap(&f)
	return func() { p.Store(old) }
}
