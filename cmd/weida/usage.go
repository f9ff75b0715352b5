package main

import (
	"fmt"
	"io"
	"strings"
)

// builtinOptions work with every verb and without one.
var builtinOptions = []option{
	{name: "--help, -h", help: "print this text on stdout (also the verb help)"},
	{name: "--version, -V", help: "print the version on stdout"},
}

// usageWidth is the line length the usage text wraps at.
const usageWidth = 80

// writeUsage prints the usage text. Verbs, options and exit codes come from
// the tables the parser and main use, so the text cannot fall behind them.
func writeUsage(w io.Writer) {
	var b strings.Builder
	b.WriteString("weida: QUIC-native messaging from the shell. The payload travels on stdin and\n" +
		"stdout only; receipts, byte counts and errors go to stderr.\n\nUsage:\n")
	var synopses [][2]string
	for _, v := range verbs {
		synopses = append(synopses, [2]string{"weida " + v.name, v.synopsis})
	}
	writeColumns(&b, synopses, synopsisGroups)
	b.WriteString("  " + completionSynopsis + "\n  weida --help | -h | help\n  weida --version | -V\n")

	b.WriteString("\nOptions may appear anywhere after the verb. The first other argument is the\n" +
		"URL, the second the payload FILE (stdin when absent).\n\nVerbs:\n")
	var summaries [][2]string
	for _, v := range verbs {
		summaries = append(summaries, [2]string{v.name, v.summary})
	}
	writeColumns(&b, summaries, strings.Fields)

	b.WriteString("\nOptions:\n")
	var options [][2]string
	for _, o := range verbOptions() {
		options = append(options, [2]string{o.spelling(), strings.Join(o.verbs, ", ") + ": " + o.help})
	}
	for _, o := range builtinOptions {
		options = append(options, [2]string{o.name, o.help})
	}
	writeColumns(&b, options, strings.Fields)

	b.WriteString(`
URLs:
  weida://sha256:HEX@HOST:PORT/PATH  QUIC; only the key it names may answer
  weida://HOST:PORT/PATH             QUIC; --ca gives trust, checked for HOST,
                                     or --trust the keys that may answer
  weida+unix://SOCKET/PATH           a unix socket, its path percent-encoded
                                     (weida+unix://%2Ftmp%2Fs.sock/echo); the
                                     kernel proves the peer, so no key
  weida+inproc://BUS/PATH            in-process only: for programs, not the
                                     shell (serve refuses it)
serve binds weida://IP:PORT/PATH (port 0 lets the kernel choose) and prints
the full address, fingerprint included, as its first line on stdout; a
weida+unix:// URL is printed as given. FILE "-" is stdin.

Shell completion: source <(weida completion bash), likewise for zsh; fish:
weida completion fish | source.

Exit codes:
`)
	var codes [][2]string
	for _, row := range exitTable {
		codes = append(codes, [2]string{fmt.Sprint(row.code), row.meaning})
	}
	writeColumns(&b, codes, strings.Fields)
	_, _ = io.WriteString(w, b.String())
}

// writeColumns writes rows as two columns indented by two spaces, wrapping
// the second column at usageWidth under itself, between the words split
// returns.
func writeColumns(b *strings.Builder, rows [][2]string, split func(string) []string) {
	left := 0
	for _, r := range rows {
		left = max(left, len(r[0]))
	}
	indent := strings.Repeat(" ", 2+left+2)
	for _, r := range rows {
		line := "  " + r[0] + strings.Repeat(" ", left-len(r[0])+2)
		for i, word := range split(r[1]) {
			if i > 0 && len(line)+1+len(word) > usageWidth {
				b.WriteString(line + "\n")
				line = indent + word
				continue
			}
			if i > 0 {
				line += " "
			}
			line += word
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
}

// synopsisGroups splits a synopsis into words, keeping each bracketed or
// parenthesised group whole, so a wrapped synopsis never separates an
// option from its operand.
func synopsisGroups(synopsis string) []string {
	var words []string
	depth, start := 0, 0
	for i, c := range synopsis {
		switch c {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case ' ':
			if depth == 0 {
				if i > start {
					words = append(words, synopsis[start:i])
				}
				start = i + 1
			}
		}
	}
	if start < len(synopsis) {
		words = append(words, synopsis[start:])
	}
	return words
}

// documentedOption is an option with the verbs that accept it.
type documentedOption struct {
	option
	verbs []string
}

// spelling is how the option is written, its operand included.
func (o documentedOption) spelling() string {
	if o.value == "" {
		return o.name
	}
	return o.name + " " + o.value
}

// verbOptions lists every verb's options once, in first-seen order.
func verbOptions() []documentedOption {
	var out []documentedOption
	index := make(map[string]int)
	for _, v := range verbs {
		for _, o := range v.options {
			i, seen := index[o.name]
			if !seen {
				i = len(out)
				index[o.name] = i
				out = append(out, documentedOption{option: o})
			}
			out[i].verbs = append(out[i].verbs, v.name)
		}
	}
	return out
}
