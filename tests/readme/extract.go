package readme

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// Block is one fenced code block of a README.
type Block struct {
	File     string // the README, relative to the repository
	Line     int    // the line of its opening fence
	Lang     string // "go", "python", "node" or "c"; "" for any other language
	Code     string
	Fragment bool // marked as a fragment: shown, not run
}

// fragmentMarker is the line that marks the next block a fragment.
var fragmentMarker = regexp.MustCompile(`^<!--\s*readme:\s*fragment\s*-->$`)

// languages maps a fence's info string to the runner that takes it.
var languages = map[string]string{
	"go": "go", "python": "python", "py": "python",
	"js": "node", "javascript": "node", "mjs": "node", "c": "c",
}

// Extract reads the fenced blocks of the Markdown file at path (named
// name in the results). A marker applies to the block right after it,
// blank lines between allowed; a marker before anything else is an error,
// so a marker cannot silently drift away from its block.
func Extract(path, name string) ([]Block, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var (
		blocks  []Block
		cur     *Block
		code    strings.Builder
		fence   string
		pending int // the line of a marker awaiting its block, or 0
	)
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if cur != nil {
			if trimmed == fence {
				cur.Code = code.String()
				blocks = append(blocks, *cur)
				cur = nil
				continue
			}
			code.WriteString(line + "\n")
			continue
		}
		switch {
		case fragmentMarker.MatchString(trimmed):
			pending = n
		case strings.HasPrefix(trimmed, "```"):
			fence = trimmed[:strings.LastIndex(trimmed, "`")+1]
			info := strings.Fields(strings.TrimPrefix(trimmed, fence))
			lang := ""
			if len(info) > 0 {
				lang = languages[info[0]]
			}
			cur = &Block{File: name, Line: n, Lang: lang, Fragment: pending != 0}
			code.Reset()
			pending = 0
		case trimmed != "" && pending != 0:
			return nil, fmt.Errorf("%s:%d: a fragment marker must come right before a code block", name, pending)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: a code block is never closed", name, cur.Line)
	}
	if pending != 0 {
		return nil, fmt.Errorf("%s:%d: a fragment marker with no block after it", name, pending)
	}
	return blocks, nil
}
