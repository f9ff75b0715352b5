package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServeOutputReadsTheAddressThenCountsWholeMessages(t *testing.T) {
	const address = "weida://127.0.0.1:4433/sink#sha256=abc"
	payload := strings.Repeat("m", 3*bindingPushSize+10) // three whole messages and a part
	tests := []struct {
		name   string
		chunks []string
	}{
		{"one write", []string{address + "\n" + payload}},
		{"the address split, payload in its own write", []string{address[:9], address[9:] + "\n", payload}},
		{"messages split across writes", []string{address + "\n" + payload[:1], payload[1:65], payload[65:200], payload[200:]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			arrived := newCounter(bindingPushSize)
			out := &serveOutput{address: make(chan string, 1), messages: arrived}
			for _, c := range tt.chunks {
				if n, err := out.Write([]byte(c)); err != nil || n != len(c) {
					t.Fatalf("Write(%d bytes) = %d, %v", len(c), n, err)
				}
			}
			select {
			case got := <-out.address:
				if got != address {
					t.Errorf("address %q, want %q", got, address)
				}
			default:
				t.Fatal("no address was read")
			}
			if got := arrived.n.Load(); got != 3 {
				t.Errorf("%d messages counted, want 3", got)
			}
		})
	}
}

func TestServeOutputRefusesAFirstLineTooLongForAnAddress(t *testing.T) {
	out := &serveOutput{address: make(chan string, 1)}
	if _, err := out.Write(make([]byte, maxAddressLine+1)); err == nil || !strings.Contains(err.Error(), "not an address") {
		t.Fatalf("error %v, want one saying the line is not an address", err)
	}
}

// fakeCLI is an executable shell script standing in for the weida CLI.
func fakeCLI(t *testing.T, script string) string {
	path := filepath.Join(t.TempDir(), "weida")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestStartServeReadsTheAddressAndStopsTheProcess(t *testing.T) {
	tests := []struct {
		name     string
		script   string
		wantURL  string
		wantErr  string // from startServe
		closeErr string // from close
	}{
		{name: "serves until terminated",
			// The trap is set before the address is printed, as serve
			// handles SIGTERM before it prints its address.
			script: `[ "$1 $2 $3" = "serve --echo weida://127.0.0.1:0/echo" ] || exit 3` + "\n" +
				"trap 'exit 0' TERM\necho weida://127.0.0.1:5000/echo\nwhile :; do sleep 0.01; done",
			wantURL: "weida://127.0.0.1:5000/echo"},
		{name: "exits before printing", script: "echo 'bad URL' >&2; exit 2", wantErr: "ended before printing its address"},
		{name: "fails on terminate", script: "trap 'exit 7' TERM\necho weida://x/echo\nwhile :; do sleep 0.01; done",
			wantURL: "weida://x/echo", closeErr: "exit status 7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := startServe(t.Context(), fakeCLI(t, tt.script), "--echo", "/echo", nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.url != tt.wantURL {
				t.Errorf("url %q, want %q", p.url, tt.wantURL)
			}
			err = p.close()
			if (tt.closeErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.closeErr)) {
				t.Errorf("close: %v, want %q", err, tt.closeErr)
			}
		})
	}
}
