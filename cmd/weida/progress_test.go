package main

import (
	"strings"
	"testing"
	"time"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func newTestProgress(terminal bool, toSend int) (*progress, *strings.Builder, *fakeClock) {
	var out strings.Builder
	p := newProgress(console{err: &out, errIsTerminal: terminal}, toSend)
	clock := &fakeClock{t: time.Unix(0, 0)}
	p.now = clock.now
	return p, &out, clock
}

func TestProgressOnlyForLargeTransfersOnATerminal(t *testing.T) {
	const mib = 1 << 20
	cases := []struct {
		name     string
		terminal bool
		sent     []int
		received []int
		want     string
	}{
		{"not a terminal", false, []int{64 * mib}, nil, ""},
		{"at the threshold", true, []int{8 * mib}, nil, ""},
		{"past the threshold", true, []int{8 * mib, 1}, nil,
			"\rweida: sent 8.0 of 16.0 MiB\x1b[K\rweida: sent 8.0 of 16.0 MiB\x1b[K\n"},
		{"both directions count", true, []int{6 * mib}, []int{3 * mib}, "\rweida: sent 6.0 of 16.0 MiB, received 3.0 MiB\x1b[K" +
			"\rweida: sent 6.0 of 16.0 MiB, received 3.0 MiB\x1b[K\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, out, _ := newTestProgress(c.terminal, 16*mib)
			for _, n := range c.sent {
				p.addSent(n)
			}
			for _, n := range c.received {
				p.addReceived(n)
			}
			p.end()
			if out.String() != c.want {
				t.Errorf("wrote %q, want %q", out.String(), c.want)
			}
		})
	}
}

func TestProgressRedrawsAtMostOncePerInterval(t *testing.T) {
	p, out, clock := newTestProgress(true, 64<<20)
	p.addSent(9 << 20) // crosses the threshold: first line
	p.addSent(1 << 20) // too soon: no redraw
	clock.t = clock.t.Add(progressInterval)
	p.addSent(1 << 20) // due: redraw
	if got, want := strings.Count(out.String(), "\r"), 2; got != want {
		t.Errorf("drew %d times, want %d: %q", got, want, out.String())
	}
	if !strings.Contains(out.String(), "\rweida: sent 11.0 of 64.0 MiB,") {
		t.Errorf("last line %q, want the current figures", out.String())
	}
}

// The rate counts every byte since the first; the time left extrapolates
// the upload's own rate, and goes once the upload is done.
func TestProgressShowsRateAndTimeLeft(t *testing.T) {
	const mib = 1 << 20
	p, out, clock := newTestProgress(true, 64*mib)
	p.addSent(1)
	clock.t = clock.t.Add(2 * time.Second)
	p.addSent(16*mib - 1) // 16 MiB in 2 s: 8 MiB/s, 48 MiB to go: 6 s
	if want := "\rweida: sent 16.0 of 64.0 MiB, 8.0 MiB/s, 6s left\x1b[K"; out.String() != want {
		t.Fatalf("wrote %q, want %q", out.String(), want)
	}
	out.Reset()
	clock.t = clock.t.Add(6 * time.Second)
	p.addSent(48 * mib) // done: 64 MiB in 8 s
	p.addReceived(16 * mib)
	clock.t = clock.t.Add(2 * time.Second)
	p.end() // 80 MiB in 10 s, nothing left to upload
	if want := "\rweida: sent 64.0 of 64.0 MiB, received 16.0 MiB, 8.0 MiB/s\x1b[K\n"; !strings.HasSuffix(out.String(), want) {
		t.Fatalf("wrote %q, want it to end %q", out.String(), want)
	}
}
