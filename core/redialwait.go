package weida

import (
	"time"

	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/transport"
)

// inprocBusWait is what an in-process redial waits on instead of a timer
// (SEMANTICS.md §8.5): its bus being bound. Nil for other schemes, and for
// a retry while the bus is bound already (a bus that refuses the dial is
// retried on the timer, never in a spin).
func inprocBusWait(addr Address, attempt int) <-chan struct{} {
	if addr.Scheme != identity.SchemeInproc {
		return nil
	}
	bound := transport.InprocBound(addr.Bus)
	if attempt > 1 {
		select {
		case <-bound:
			return nil
		default:
		}
	}
	return bound
}

// redialWait waits before a redial attempt: for bound when it is not nil,
// else for delay; a give-up duration still ends the wait. False when the
// endpoint closed.
func (d *dialer) redialWait(delay time.Duration, bound <-chan struct{}, downAt time.Time) bool {
	if bound == nil {
		timer := time.NewTimer(delay)
		defer timer.Stop()
		select {
		case <-timer.C:
			return true
		case <-d.ctx.Done():
			return false
		}
	}
	var giveUp <-chan time.Time
	if limit := d.policy.GiveUpAfterDuration; limit > 0 {
		timer := time.NewTimer(time.Until(downAt.Add(limit)))
		defer timer.Stop()
		giveUp = timer.C
	}
	select {
	case <-bound:
	case <-giveUp:
	case <-d.ctx.Done():
		return false
	}
	return true
}
