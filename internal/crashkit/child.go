package crashkit

import (
	"fmt"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// Child is one run of the weida binary beside the test, its output read
// as lines.
type Child struct {
	Cmd     *exec.Cmd
	Stdout  *LineSink
	Stderr  *LineSink
	Exited  chan struct{} // closed once the process was reaped
	Started time.Time
	name    string // how failures call it: "the broker", "a member"
}

// Start runs cmd, named name in failures, with every stderr line passed to
// onStderr (which may be nil). It is killed when the test ends if it is
// still running then.
func Start(t testing.TB, name string, cmd *exec.Cmd, onStderr func(string)) (*Child, error) {
	c := &Child{Cmd: cmd, Stdout: NewLineSink(nil), Stderr: NewLineSink(onStderr),
		Exited: make(chan struct{}), name: name}
	cmd.Stdout, cmd.Stderr = c.Stdout, c.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c.Started = time.Now()
	go func() {
		_ = cmd.Wait() // its status is read from ProcessState
		close(c.Exited)
	}()
	t.Cleanup(c.Discard)
	return c, nil
}

// AwaitFirstLine waits up to timeout for the child's first line of stdout
// (its address): an error when it exited first or printed nothing in time.
func (c *Child) AwaitFirstLine(timeout time.Duration) (string, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case line := <-c.Stdout.First():
		return line, nil
	case <-c.Exited:
		return "", fmt.Errorf("%s exited before printing its address (%s); stderr:\n%s", c.name, c.Cmd.ProcessState, c.Stderr.Text())
	case <-timer.C:
		return "", fmt.Errorf("%s printed no address within %v; stderr:\n%s", c.name, timeout, c.Stderr.Text())
	}
}

// Kill sends SIGKILL and requires that the signal is what ended the
// child: a child that had already exited died on its own.
func (c *Child) Kill(t testing.TB) {
	t.Helper()
	_ = c.Cmd.Process.Signal(syscall.SIGKILL) // an error: gone already, the status says how
	<-c.Exited
	if st := c.Cmd.ProcessState; st.Exited() {
		t.Fatalf("%s exited on its own (%s) before SIGKILL reached it; stderr:\n%s", c.name, st, c.Stderr.Text())
	}
}

// Discard ends the child however it stands (it may have exited already).
func (c *Child) Discard() {
	_ = c.Cmd.Process.Kill()
	<-c.Exited
}

// Stop sends SIGTERM, the CLI's orderly end, waits up to timeout for the
// child to exit and returns its exit status.
func (c *Child) Stop(t testing.TB, timeout time.Duration) int {
	t.Helper()
	if err := c.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("cannot signal %s: %v", c.name, err)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-c.Exited:
	case <-timer.C:
		t.Fatalf("%s did not stop within %v of SIGTERM; stderr:\n%s", c.name, timeout, c.Stderr.Text())
	}
	return c.Cmd.ProcessState.ExitCode()
}
