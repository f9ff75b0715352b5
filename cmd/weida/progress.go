package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Progress is shown only for transfers big enough to be watched, and only
// to a person: a script reading stderr gets its one line per outcome and
// nothing else.
const (
	progressThreshold = 8 << 20
	progressInterval  = 250 * time.Millisecond
)

// progress keeps one self-overwriting line on stderr about the bytes a send
// or request moved. It is safe for concurrent use: a request counts its
// upload and its reply from two goroutines.
type progress struct {
	mu       sync.Mutex
	w        io.Writer // nil: disabled
	now      func() time.Time
	toSend   int64
	sent     int64
	received int64
	started  time.Time // the first byte counted: rates are since then
	shownAt  time.Time
	shown    bool
}

// newProgress returns a meter for a payload of toSend bytes that writes to
// stderr only when stderr is a terminal.
func newProgress(con console, toSend int) *progress {
	p := &progress{now: time.Now, toSend: int64(toSend)}
	if con.errIsTerminal {
		p.w = con.err
	}
	return p
}

// addSent counts n payload bytes written.
func (p *progress) addSent(n int) { p.add(&p.sent, n) }

// addReceived counts n reply bytes read.
func (p *progress) addReceived(n int) { p.add(&p.received, n) }

func (p *progress) add(counter *int64, n int) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started.IsZero() {
		p.started = p.now()
	}
	*counter += int64(n)
	if p.sent+p.received <= progressThreshold {
		return
	}
	if now := p.now(); !p.shown || now.Sub(p.shownAt) >= progressInterval {
		p.shownAt, p.shown = now, true
		p.draw()
	}
}

// end draws the final figures and ends the line, so the outcome line that
// follows starts on its own.
func (p *progress) end() {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		p.draw()
		fmt.Fprintln(p.w)
	}
}

// draw rewrites the line in place and clears what an earlier, longer one
// left (a terminal's erase-to-end-of-line): the rate and the time left
// since the first byte, the time left only while the upload goes on (a
// reply's length is not known ahead).
func (p *progress) draw() {
	fmt.Fprintf(p.w, "\rweida: sent %.1f of %s", float64(p.sent)/(1<<20), mebibytes(p.toSend))
	if p.received > 0 {
		fmt.Fprintf(p.w, ", received %s", mebibytes(p.received))
	}
	if elapsed := p.now().Sub(p.started); elapsed > 0 {
		fmt.Fprintf(p.w, ", %s/s", mebibytes(int64(float64(p.sent+p.received)/elapsed.Seconds())))
		if p.sent > 0 && p.sent < p.toSend {
			left := time.Duration(float64(p.toSend-p.sent) / float64(p.sent) * float64(elapsed))
			fmt.Fprintf(p.w, ", %v left", left.Round(time.Second))
		}
	}
	fmt.Fprint(p.w, eraseToEndOfLine)
}

// eraseToEndOfLine is the ANSI sequence a terminal clears the rest of the line on.
const eraseToEndOfLine = "\x1b[K"

// mebibytes renders a byte count for the progress line.
func mebibytes(n int64) string {
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
