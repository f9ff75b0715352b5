package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"

	weida "github.com/weida-go/weida/core"
)

// version is what --version reports; a release build sets it with
// -ldflags "-X main.version=1.2.3".
var version = "0.1.0-dev"

// verbs is every verb this binary offers, in the order the usage text lists
// them.
var verbs = []*verb{sendVerb, requestVerb, subVerb, serveVerb, brokerVerb, keygenVerb}

// drainTimeout bounds the drain every verb ends with (SURFACE.md §1.7).
const drainTimeout = 5 * time.Second

// The exit statuses of SURFACE.md §1.6.
const (
	exitOK              = 0
	exitFailure         = 1
	exitUsage           = 2
	exitRejected        = 3
	exitUnknownEndpoint = 4
	exitNoReply         = 5
	exitUntrusted       = 6
	exitDisconnected    = 7
)

// exitTable is the one mapping from outcome to exit status; the usage text
// prints it too. A kind that no row names, Indeterminate included, exits 1:
// no script may mistake an unknown outcome for a definite one.
var exitTable = []struct {
	code    int
	kinds   []weida.ErrorKind
	meaning string
}{
	{exitOK, nil, "the operation completed"},
	{exitFailure, nil, "any other failure, including an unknown outcome"},
	{exitUsage, nil, "usage: a bad verb, option or argument"},
	{exitRejected, []weida.ErrorKind{weida.KindRejected}, "the peer refused the payload"},
	{exitUnknownEndpoint, []weida.ErrorKind{weida.KindUnknownEndpoint}, "no endpoint is registered at that path"},
	{exitNoReply, []weida.ErrorKind{weida.KindNoReply}, "the request was accepted and no reply will ever exist"},
	{exitUntrusted, []weida.ErrorKind{weida.KindUntrusted}, "the key that answered is not trusted"},
	{exitDisconnected, []weida.ErrorKind{weida.KindConnectionLost, weida.KindNotConnected},
		"the connection was lost, or never established"},
}

// exitCode is the status err earns under exitTable.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var usage *usageError
	if errors.As(err, &usage) {
		return exitUsage
	}
	kind := weida.KindOf(err)
	for _, row := range exitTable {
		if slices.Contains(row.kinds, kind) {
			return row.code
		}
	}
	return exitFailure
}

// reportedError marks an error the verb already described on stderr in its
// own words (send's "undelivered" line); it still decides the exit status.
type reportedError struct{ err error }

func (e *reportedError) Error() string { return e.err.Error() }
func (e *reportedError) Unwrap() error { return e.err }

// console is the process's standard streams. The payload goes to out and
// nothing else does (serve's address line excepted).
type console struct {
	in  io.Reader
	out io.Writer
	err io.Writer
	// errIsTerminal says a person is watching err: the only case in which a
	// progress line is written.
	errIsTerminal bool
}

// main runs the command line against the process's standard streams.
func main() {
	con := console{in: os.Stdin, out: os.Stdout, err: os.Stderr, errIsTerminal: isTerminal(os.Stderr)}
	os.Exit(run(os.Args[1:], con))
}

// run carries out one command line and returns the exit status.
func run(args []string, con console) int {
	cmd, err := parseCommandLine(args)
	if err != nil {
		reportUsageError(con.err, err)
		return exitUsage
	}
	switch cmd.action {
	case showHelp:
		writeUsage(con.out)
		return exitOK
	case showVersion:
		fmt.Fprintf(con.out, "weida %s\n", version)
		return exitOK
	case showCompletion:
		completionShells[cmd.shell](con.out)
		return exitOK
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first signal ends the verb gracefully; restoring the default
	// handlers lets a second one kill a process that is slow to stop.
	context.AfterFunc(ctx, stop)

	return exitCode(runVerb(ctx, cmd.inv, con))
}

// runVerb gives the verb a runtime and drains the runtime after it, rather
// than aborting: a finished send whose receipt is still in flight, or a
// reply the requester has not read yet, keeps its bytes (SURFACE.md §1.7).
func runVerb(ctx context.Context, inv *invocation, con console) error {
	var cfg weida.Config
	if inv.verb.runtimeConfig != nil {
		var err error
		if cfg, err = inv.verb.runtimeConfig(inv); err != nil {
			reportError(con.err, err)
			return err
		}
	}
	rt, err := weida.NewRuntime(cfg)
	if err != nil {
		reportError(con.err, err)
		return err
	}
	inv.drainDeadline = sync.OnceValue(func() time.Time { return time.Now().Add(drainTimeout) })
	verbCtx, cancel := withTimeout(ctx, inv)
	err = timedOut(verbCtx, inv, inv.verb.run(verbCtx, rt, inv, con))
	cancel()
	// Said before the drain, which may take seconds.
	reportError(con.err, err)
	drained, drainErr := rt.Drain(inv.drainDeadline())
	// Only a verb that succeeded hears about the drain: a refused transfer
	// is unacknowledged by nature, and saying so beside the refusal would
	// read as a second, unrelated failure.
	if err == nil {
		reportDrain(con.err, drained, drainErr)
	}
	return err
}

// reportError writes "weida: <error>" on stderr, unless the verb already
// described err in its own words.
func reportError(stderr io.Writer, err error) {
	var reported *reportedError
	if err != nil && !errors.As(err, &reported) {
		fmt.Fprintf(stderr, "weida: %v\n", err)
	}
}

// reportDrain tells stderr what a drain left undone; the exit status stays
// the verb's.
func reportDrain(stderr io.Writer, drained weida.Drained, err error) {
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "weida: the drain failed: %v\n", err)
	case drained.Outstanding > 0:
		fmt.Fprintf(stderr, "weida: %d transfer(s) unacknowledged at the drain deadline\n", drained.Outstanding)
	}
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
