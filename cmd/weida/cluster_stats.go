package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/weida-go/weida/core/broker"
)

// serveStats prints every queue's figures on stderr at each SIGUSR1 until
// ctx ends: the broker's view for an operator, as SIGHUP is its reload.
// The returned wait returns once it stopped.
func serveStats(ctx context.Context, b *broker.Broker, con console) (wait func()) {
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer signal.Stop(usr1)
		for {
			select {
			case <-ctx.Done():
				return
			case <-usr1:
			}
			for _, path := range b.Paths() {
				st, err := b.Stats(ctx, path)
				if err != nil {
					fmt.Fprintf(con.err, "weida: stats queue=%s: %v\n", path, err)
					continue
				}
				writeStats(con.err, path, st)
			}
		}
	}()
	return func() { <-done }
}

// writeStats writes one queue's figures as key=value lines: the queue's
// own, then for a replicated queue its group (leader, term, indexes) and
// one line per member.
func writeStats(w io.Writer, path string, st broker.QueueStats) {
	var b strings.Builder
	fmt.Fprintf(&b, "weida: stats queue=%s ready=%d unsettled=%d consumers=%d delivered=%d refused=%d",
		path, st.Ready, st.Unsettled, st.Consumers, st.Delivered, st.Refused)
	if c := st.Cluster; c != nil {
		leader := c.Leader
		if leader == "" {
			leader = "none"
		}
		fmt.Fprintf(&b, " leader=%s leading=%v state=%s term=%d commit=%d applied=%d last_contact=%s",
			leader, c.IsLeader, c.State, c.Term, c.CommitIndex, c.AppliedIndex, lastContact(c.LastContact))
		for _, m := range c.Members {
			fmt.Fprintf(&b, "\nweida: stats queue=%s member=%s url=%s raft=%s", path, m.Key, m.URL.HostPort(), m.Raft)
		}
	}
	b.WriteByte('\n')
	_, _ = io.WriteString(w, b.String())
}

// lastContact reads GroupStats.LastContact: "never" for -1.
func lastContact(d time.Duration) string {
	if d < 0 {
		return "never"
	}
	return d.Round(time.Millisecond).String()
}
