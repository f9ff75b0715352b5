package docs

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/wire"
)

// The golden vectors as docs/PROTOCOL.md §15 prints them, checked against
// core/wire: a vector the document gets wrong, or one the codec stops
// matching, fails here.

var (
	codeRe   = regexp.MustCompile("`([^`]*)`")
	hexRe    = regexp.MustCompile(`^[0-9A-Fa-f]{2}( [0-9A-Fa-f]{2})*$`)
	headRe   = regexp.MustCompile(`^#{2,4} (\d+(?:\.\d+)*)\b`)
	fieldsRe = regexp.MustCompile(`^(\w+)=(.*)$`)
)

// protocolSection returns the text of docs/PROTOCOL.md under the heading
// numbered n, up to the next heading of any level.
func protocolSection(t *testing.T, n string) string {
	t.Helper()
	text := readFile(t, repoRoot(t), "docs/PROTOCOL.md")
	var out []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		if m := headRe.FindStringSubmatch(line); m != nil {
			in = m[1] == n
			continue
		}
		if in {
			out = append(out, line)
		}
	}
	if len(out) == 0 {
		t.Fatalf("docs/PROTOCOL.md has no §%s", n)
	}
	return strings.Join(out, "\n")
}

// tableRows returns the body rows of the Markdown tables in text, as cells.
func tableRows(text string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "| ---") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, cells)
	}
	return rows
}

// hexRows returns the rows whose first code cell holds hex bytes, with
// those bytes and the row's other cells; a table's heading row has none.
func hexRows(t *testing.T, text string) []hexRow {
	t.Helper()
	var rows []hexRow
	for _, cells := range tableRows(text) {
		for i, c := range cells {
			m := codeRe.FindStringSubmatch(c)
			if m == nil || !hexRe.MatchString(m[1]) {
				continue
			}
			b, err := hex.DecodeString(strings.ReplaceAll(m[1], " ", ""))
			if err != nil {
				t.Fatalf("row %v: %v", cells, err)
			}
			rows = append(rows, hexRow{bytes: b, hex: m[1], cells: cells, at: i})
			break
		}
	}
	return rows
}

type hexRow struct {
	bytes []byte
	hex   string
	cells []string
	at    int // the cell holding the bytes
}

// cell returns the code text of the cell off places after the bytes, or
// the cell's plain text when it has no code.
func (r hexRow) cell(off int) string {
	c := r.cells[r.at+off]
	if m := codeRe.FindStringSubmatch(c); m != nil {
		return m[1]
	}
	return c
}

func TestProtocolGoldenFrames(t *testing.T) {
	rows := hexRows(t, protocolSection(t, "15.1"))
	if len(rows) != 29 {
		t.Fatalf("§15.1 lists %d frame vectors, want 29", len(rows))
	}
	for _, r := range rows {
		t.Run(r.cells[0], func(t *testing.T) {
			p, n, err := wire.ParsePreamble(r.bytes, wire.DefaultMaxHeaderBytes)
			if err != nil {
				t.Fatalf("%s: preamble: %v", r.hex, err)
			}
			if int(p.HeaderLen) != len(r.bytes)-n {
				t.Fatalf("%s: header_len %d, but %d header bytes follow", r.hex, p.HeaderLen, len(r.bytes)-n)
			}
			if name := strings.Fields(r.cells[1])[0]; strings.TrimSuffix(name, ",") != p.Kind.String() {
				t.Fatalf("%s: the row says %s, the kind byte says %v", r.hex, name, p.Kind)
			}
			h, err := decodeKind(p.Kind, r.bytes[n:])
			if err != nil {
				t.Fatalf("%s: decode: %v", r.hex, err)
			}
			if got, want := render(h), r.cell(1); got != want {
				t.Fatalf("%s decodes to\n %s\nthe document says\n %s", r.hex, got, want)
			}
			if got := wire.AppendFrame(nil, p.Kind, h); !bytes.Equal(got, r.bytes) {
				t.Fatalf("re-encoded: % X\nthe document says %s", got, r.hex)
			}
		})
	}
}

func TestProtocolGoldenByteStrings(t *testing.T) {
	rows := hexRows(t, protocolSection(t, "15.2"))
	if len(rows) != 5 {
		t.Fatalf("§15.2 lists %d byte strings, want 5", len(rows))
	}
	for _, r := range rows {
		var got string
		switch what := r.cells[r.at+1]; {
		case strings.HasPrefix(what, "CURSOR record"):
			rec, n, err := wire.ParseCursorRecord(r.bytes)
			if err != nil || n != len(r.bytes) {
				t.Fatalf("%s: ParseCursorRecord = %d bytes, %v", r.hex, n, err)
			}
			got = fmt.Sprintf("level=%d offset=%d", rec.Level, rec.Offset)
			if enc := wire.AppendCursorRecord(nil, rec); !bytes.Equal(enc, r.bytes) {
				t.Errorf("%s: re-encoded % X", r.hex, enc)
			}
		case strings.HasPrefix(what, "REPORT record"):
			rec, n, err := wire.ParseReportRecord(r.bytes)
			if err != nil || n != len(r.bytes) {
				t.Fatalf("%s: ParseReportRecord = %d bytes, %v", r.hex, n, err)
			}
			got = renderReport(rec)
			if enc := wire.AppendReportRecord(nil, &rec); !bytes.Equal(enc, r.bytes) {
				t.Errorf("%s: re-encoded % X", r.hex, enc)
			}
		case strings.HasPrefix(what, "DATAGRAM"):
			flow, payload, err := wire.ParseDatagram(r.bytes)
			if err != nil {
				t.Fatalf("%s: %v", r.hex, err)
			}
			got = fmt.Sprintf("flow=%d payload=%q", flow, payload)
			if enc := wire.AppendDatagram(nil, flow, payload); !bytes.Equal(enc, r.bytes) {
				t.Errorf("%s: re-encoded % X", r.hex, enc)
			}
		default:
			t.Fatalf("%s: unknown byte string %q", r.hex, what)
		}
		if want := r.cell(2); got != want {
			t.Errorf("%s is %s; the document says %s", r.hex, got, want)
		}
	}
}

func TestProtocolRefusedVectors(t *testing.T) {
	section := protocolSection(t, "15.3")
	refused, accepted, _ := strings.Cut(section, "Accepted, though unusual")
	headers, preambles, _ := strings.Cut(refused, "Preambles:")
	rows := hexRows(t, headers)
	if len(rows) < 26 {
		t.Fatalf("§15.3 lists %d refused headers, want 26 or more", len(rows))
	}
	for _, r := range rows {
		kind, ok := kindNamed(r.cell(1))
		if !ok {
			t.Fatalf("%s: unknown kind %q", r.hex, r.cell(1))
		}
		if _, err := decodeKind(kind, r.bytes); !errors.Is(err, wire.ErrProtocolViolation) {
			t.Errorf("%s as %v (%s): err = %v, want a protocol violation", r.hex, kind, r.cell(2), err)
		}
	}
	prows := hexRows(t, preambles)
	if len(prows) != 4 {
		t.Fatalf("§15.3 lists %d refused preambles, want 4", len(prows))
	}
	for _, r := range prows {
		if _, _, err := wire.ParsePreamble(r.bytes, wire.DefaultMaxHeaderBytes); !errors.Is(err, wire.ErrProtocolViolation) {
			t.Errorf("preamble %s (%s): err = %v, want a protocol violation", r.hex, r.cell(1), err)
		}
	}
	badFilters := codeList(t, refused, "Filters refused")
	if len(badFilters) != 7 {
		t.Fatalf("§15.3 lists %d refused filters, want 7", len(badFilters))
	}
	for _, f := range badFilters {
		if err := wire.ValidateFilter(f); !errors.Is(err, wire.ErrProtocolViolation) {
			t.Errorf("filter %q: err = %v, want a protocol violation", f, err)
		}
	}
	if _, _, err := wire.ParseCursorRecord([]byte{0x0F, 0x00}); !errors.Is(err, wire.ErrProtocolViolation) ||
		!strings.Contains(refused, "CURSOR record `0F 00`") {
		t.Errorf("CURSOR record 0F 00: err = %v, want a protocol violation (and the document to list it)", err)
	}

	arows := hexRows(t, accepted)
	if len(arows) != 4 {
		t.Fatalf("§15.3 lists %d accepted headers, want 4", len(arows))
	}
	for _, r := range arows {
		kind, _ := kindNamed(r.cell(1))
		h, err := decodeKind(kind, r.bytes)
		if err != nil {
			t.Fatalf("%s as %v: %v", r.hex, kind, err)
		}
		if got, want := render(h), r.cell(2); got != want {
			t.Errorf("%s decodes to %s; the document says %s", r.hex, got, want)
		}
	}
	for _, f := range codeList(t, accepted, "Filters accepted") {
		if err := wire.ValidateFilter(f); err != nil {
			t.Errorf("filter %q: %v", f, err)
		}
	}
	for _, p := range codeList(t, accepted, "Preambles accepted") {
		b, _ := hex.DecodeString(strings.ReplaceAll(p, " ", ""))
		if _, n, err := wire.ParsePreamble(b, wire.DefaultMaxHeaderBytes); err != nil || n != len(b) {
			t.Errorf("preamble %s: %d bytes, %v", p, n, err)
		}
	}
}

// codeList returns the code spans of the sentence of text that starts with
// lead, up to the full stop after its last span.
func codeList(t *testing.T, text, lead string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(text, lead)
	if !ok {
		t.Fatalf("no %q in the section", lead)
	}
	if end := listEndRe.FindStringIndex(rest); end != nil {
		rest = rest[:end[0]+1]
	}
	var out []string
	for _, m := range codeRe.FindAllStringSubmatch(rest, -1) {
		s := m[1]
		if s == `""` {
			s = ""
		}
		out = append(out, s)
	}
	return out
}

// listEndRe is a code span's closing backtick followed by a full stop.
var listEndRe = regexp.MustCompile("`\\.(\\s|$)")

func TestProtocolVarintsAndFingerprint(t *testing.T) {
	section := protocolSection(t, "15.4")
	rows := hexRows(t, section)
	if len(rows) != 6 {
		t.Fatalf("§15.4 lists %d varints, want 6", len(rows))
	}
	for _, r := range rows {
		want, err := strconv.ParseUint(r.cell(1), 10, 64)
		if err != nil {
			t.Fatalf("%s: value %q: %v", r.hex, r.cell(1), err)
		}
		got, n, err := wire.ParseVarint(r.bytes)
		if err != nil || n != len(r.bytes) || got != want {
			t.Errorf("%s = %d (%d bytes, %v); the document says %d", r.hex, got, n, err, want)
		}
	}
	fp := regexp.MustCompile(`sha256:[0-9a-f]{64}`).FindString(section)
	f, err := identity.ParseFingerprint(fp)
	if err != nil {
		t.Fatalf("%s: %v", fp, err)
	}
	var want identity.Fingerprint
	for i := range 31 {
		want[i] = byte(i)
	}
	want[31] = 0xFF
	if f != want {
		t.Errorf("%s parses to %x, want bytes 00..1E then FF", fp, f[:])
	}
	if upper, err := identity.ParseFingerprint("sha256:" + strings.ToUpper(fp[7:])); err != nil || upper != want {
		t.Errorf("uppercase digits: %x, %v", upper[:], err)
	}
}

// goldenEntryRe is one entry of core/wire's goldenFrames table:
// {n, "57 01 ...", ...}.
var goldenEntryRe = regexp.MustCompile(`\{(\d+), "([0-9A-F ]+)"`)

// TestProtocolVectorsAreTheCodecsOwn checks that §15.1 prints exactly the
// frame vectors core/wire's own golden test holds, number for number.
func TestProtocolVectorsAreTheCodecsOwn(t *testing.T) {
	codec := map[string]string{}
	for _, m := range goldenEntryRe.FindAllStringSubmatch(readFile(t, repoRoot(t), "core/wire/golden_test.go"), -1) {
		codec[m[1]] = m[2]
	}
	rows := hexRows(t, protocolSection(t, "15.1"))
	if len(codec) != len(rows) {
		t.Fatalf("core/wire/golden_test.go has %d frame vectors, §15.1 %d", len(codec), len(rows))
	}
	for _, r := range rows {
		if got := codec[r.cells[0]]; got != strings.ToUpper(r.hex) {
			t.Errorf("vector %s: core/wire has %q, the document %q", r.cells[0], got, r.hex)
		}
	}
}

// renderReport writes a REPORT record's present fields as name=value in
// key order, the way §15.2 states them.
func renderReport(p wire.PathReport) string {
	var out []string
	for _, f := range []struct {
		name string
		v    wire.Opt[uint64]
	}{
		{"rtt_us", p.RTTMicros}, {"min_rtt_us", p.MinRTTMicros}, {"cwnd", p.CongestionWindow},
		{"congestion_events", p.CongestionEvents}, {"lost_packets", p.LostPackets}, {"lost_bytes", p.LostBytes},
		{"sent_packets", p.SentPackets}, {"current_mtu", p.CurrentMTU}, {"tx_datagrams", p.TxDatagrams},
		{"tx_bytes", p.TxBytes}, {"rx_datagrams", p.RxDatagrams}, {"rx_bytes", p.RxBytes},
	} {
		if f.v.Ok {
			out = append(out, fmt.Sprintf("%s=%d", f.name, f.v.V))
		}
	}
	return strings.Join(out, " ")
}
