package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	weida "github.com/weida-go/weida/core"
)

// errTimeout is the cause of a context that --timeout ended.
var errTimeout = errors.New("--timeout")

// timeoutOf reads --timeout: a positive Go duration ("500ms", "30s",
// "2m"). Not given, it is zero and false.
func timeoutOf(inv *invocation) (time.Duration, bool, error) {
	s, ok := inv.value(optTimeout)
	if !ok {
		return 0, false, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, false, usageErrorf(inv.verb, "--timeout %q is not a positive duration such as 500ms, 30s or 2m", s)
	}
	return d, true, nil
}

// withTimeout bounds ctx by --timeout when it was given.
func withTimeout(ctx context.Context, inv *invocation) (context.Context, context.CancelFunc) {
	d, ok, _ := timeoutOf(inv) // checked when the command line was read
	if !ok {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, d, errTimeout)
}

// timedOut names the timeout as the reason a verb failed when --timeout
// ended it (exit status 1, as an Expired send timeout). A verb that ends
// well at its timeout, such as sub without --count, still succeeds.
func timedOut(ctx context.Context, inv *invocation, err error) error {
	if err == nil || !errors.Is(context.Cause(ctx), errTimeout) {
		return err
	}
	d, _, _ := timeoutOf(inv)
	msg := fmt.Sprintf("timed out after %v (--timeout)", d)
	if weida.KindOf(err) != weida.KindCanceled && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		msg += ": " + err.Error()
	}
	return &weida.Error{Kind: weida.KindExpired, Msg: msg, Err: err}
}
