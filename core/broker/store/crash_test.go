package store_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"testing"

	"github.com/weida-go/weida/core/broker/store"
)

// crashChildEnv makes the test binary act as the crashing child.
const crashChildEnv = "WEIDA_STORE_CRASH_CHILD"

// certified is what the child printed after Admit returned.
type certified struct {
	digest    [32]byte
	key, size int
	settling  bool // the child announced a Settle: live or gone are both right
}

// TestCrashConsistency SIGKILLs a child that admits Flushed messages at
// random points and checks that every message the child certified (printed
// after Admit returned) is live after reopening, with the right digest and
// body bytes, unless the child had announced settling it.
func TestCrashConsistency(t *testing.T) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		crashChild(dir)
		return
	}
	kills := 8
	if testing.Short() {
		kills = 3
	}
	dir := t.TempDir()
	seen := make(map[uint64]*certified)
	for round := 0; round < kills; round++ {
		runAndKill(t, dir, 1+rand.IntN(40), seen)
		verifyAfterCrash(t, dir, seen)
	}
}

// runAndKill starts the child, reads lines until it has seen after of them,
// SIGKILLs it and then reads whatever else it printed before dying.
func runAndKill(t *testing.T, dir string, after int, seen map[uint64]*certified) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashConsistency$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	for n := 0; lines.Scan(); n++ {
		if n == after {
			cmd.Process.Kill() // SIGKILL: no deferred code, no Close
		}
		parseChildLine(t, lines.Text(), seen)
	}
	cmd.Wait()
}

func parseChildLine(t *testing.T, line string, seen map[uint64]*certified) {
	t.Helper()
	var seq uint64
	var c certified
	var hexDigest []byte
	switch line[0] {
	case 'A':
		if _, err := fmt.Sscanf(line, "A %d %x %d %d", &seq, &hexDigest, &c.key, &c.size); err != nil {
			t.Fatalf("child line %q: %v", line, err)
		}
		copy(c.digest[:], hexDigest)
		seen[seq] = &c
	case 'S':
		fmt.Sscanf(line, "S %d", &seq)
		if seen[seq] != nil {
			seen[seq].settling = true
		}
	default:
		t.Fatalf("child line %q", line)
	}
}

func verifyAfterCrash(t *testing.T, dir string, seen map[uint64]*certified) {
	t.Helper()
	s := openStore(t, dir, store.Options{SegmentBytes: 64 << 10})
	defer s.Close()
	q, msgs := openQueue(t, s, store.Flushed)
	live := make(map[uint64]store.Message)
	for _, m := range msgs {
		live[m.Seq] = m
		body := readBody(t, q, m.Seq)
		if sha256.Sum256(body) != m.Digest || uint64(len(body)) != m.BodyLen {
			t.Fatalf("seq %d: payload does not match its ADMIT record", m.Seq)
		}
	}
	t.Logf("after crash: %d certified so far, %d live", len(seen), len(msgs))
	for seq, c := range seen {
		m, ok := live[seq]
		if c.settling {
			continue // a lost SETTLE means redelivery: live or not, both are right
		}
		if !ok {
			t.Fatalf("certified seq %d is not live after the crash (live: %d messages)", seq, len(msgs))
		}
		if m.Digest != c.digest || !bytes.Equal(readBody(t, q, seq), bodyOf(c.key, c.size)) {
			t.Fatalf("certified seq %d came back with other bytes", seq)
		}
	}
}

// crashChild admits Flushed messages until it is killed, printing each one
// after Admit returns, and settles the oldest live message every third admit
// (announcing it first).
func crashChild(dir string) {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "crash child:", err)
		os.Exit(2)
	}
	s, err := store.Open(dir, store.Options{SegmentBytes: 64 << 10})
	if err != nil {
		fail(err)
	}
	q, msgs, err := s.OpenQueue(queuePath, store.Flushed)
	if err != nil {
		fail(err)
	}
	pending := seqsOf(msgs)
	for i := 0; ; i++ {
		// Both sides of the write buffer, and one body in three small
		// enough to go inline in its ADMIT record.
		key, size := rand.IntN(1<<20), rand.IntN(100_000)
		if i%3 == 0 {
			size = rand.IntN(store.MaxInlineBodyBytes + 1)
		}
		b, err := q.NewBody()
		if err != nil {
			fail(err)
		}
		if _, err := io.Copy(b, bytes.NewReader(bodyOf(key, size))); err != nil {
			fail(err)
		}
		m, err := q.Admit(b, store.Meta{Topic: []byte("crash"), HasTopic: true})
		if err != nil {
			fail(err)
		}
		fmt.Printf("A %d %x %d %d\n", m.Seq, m.Digest, key, size)
		pending = append(pending, m.Seq)
		if i%3 == 2 {
			// Announce before settling: a kill between Settle and the line
			// would otherwise make a settled message look lost.
			fmt.Printf("S %d\n", pending[0])
			if err := q.Settle(pending[0]); err != nil {
				fail(err)
			}
			pending = pending[1:]
		}
	}
}
