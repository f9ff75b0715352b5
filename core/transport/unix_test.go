package transport

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/wire"
)

// Environment of the foreign-member helper process.
const (
	foreignSocketEnv = "WEIDA_TEST_FOREIGN_SOCKET"
	foreignTokenEnv  = "WEIDA_TEST_FOREIGN_TOKEN"
)

// joinGroup connects to path as a transfer connection of the group token
// names and writes the start of a DATA transfer (no FIN).
func joinGroup(path string, token []byte) (net.Conn, error) {
	conn, err := net.Dial("unix", path)
	if err != nil {
		return nil, err
	}
	frame := wire.AppendFrame(nil, wire.KindData, &wire.Data{Endpoint: wire.Some("/t")})
	msg := append([]byte{preambleTransfer}, token...)
	msg = append(msg, chunkPayload, 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(msg[len(msg)-4:], uint32(len(frame)))
	_, _ = conn.Write(append(msg, frame...)) // a refusal may close it first
	return conn, nil
}

// memberAttempt joins the group and reports whether the listener closed
// the connection ("refused") or kept it ("admitted").
func memberAttempt(path string, token []byte) (string, error) {
	conn, err := joinGroup(path, token)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	// Refused is immediate; admitted waits for the transfer's end, so the
	// deadline is only ever reached when the connection was admitted.
	_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	_, err = conn.Read(make([]byte, 1))
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "admitted", nil
	}
	return "refused", nil
}

// TestUnixForeignMemberHelper is the helper process of
// TestUnixGroupMembersAreTheControlPrincipal; alone it skips.
func TestUnixForeignMemberHelper(t *testing.T) {
	path := os.Getenv(foreignSocketEnv)
	if path == "" {
		t.Skip("helper process only")
	}
	token, err := hex.DecodeString(os.Getenv(foreignTokenEnv))
	if err != nil {
		t.Fatal(err)
	}
	verdict, err := memberAttempt(path, token)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("verdict:", verdict)
}

// TestUnixGroupMembersAreTheControlPrincipal: a transfer connection with a
// live group's token is admitted from the process that holds the control
// connection, and refused from another process (the kernel's pid differs).
func TestUnixGroupMembersAreTheControlPrincipal(t *testing.T) {
	s, c := connectLocal(t, localKinds[1].start)
	link := c.local.(*unixLink)
	if _, ok := link.peer(); !ok {
		t.Skip("this platform reports no peer credentials")
	}
	path := s.addr.SocketPath
	conn, err := joinGroup(path, link.token[:])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	select {
	case in := <-s.h.data:
		in.Refuse(wire.CodeCanceled)
	case <-time.After(10 * time.Second):
		t.Fatal("a transfer connection from the group's own process was not admitted")
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestUnixForeignMemberHelper$", "-test.v")
	cmd.Env = append(os.Environ(), foreignSocketEnv+"="+path, foreignTokenEnv+"="+hex.EncodeToString(link.token[:]))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "verdict: refused") {
		t.Fatalf("another process with the token was not refused:\n%s", out)
	}
}

// TestUnixStaleTokenAfterTheGroupEnded: a token stops naming a group once
// its control connection is gone.
func TestUnixStaleTokenAfterTheGroupEnded(t *testing.T) {
	s := localKinds[1].start(t, NewConfig())
	c, err := Dial(testContext(t), s.addr, identity.Trust{}, nil, NewConfig(), newRecorder())
	if err != nil {
		t.Fatal(err)
	}
	token := c.local.(*unixLink).token
	c.Close(wire.CodeNoError, "")
	select {
	case <-s.h.closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the listener never saw the group end")
	}
	if verdict, err := memberAttempt(s.addr.SocketPath, token[:]); err != nil || verdict != "refused" {
		t.Fatalf("a token of an ended group: %s, %v; want refused", verdict, err)
	}
}
