package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// specDocs are the documents code and docs cite by name; each one cited
// must be docs/<name>.
var specDocs = []string{"PROTOCOL", "SEMANTICS", "BROKER", "SURFACE", "CLUSTER"}

var (
	// docNameRe finds a document name: "PROTOCOL.md", or "SEMANTICS" right
	// before a section sign ("SEMANTICS §2.1").
	docNameRe = regexp.MustCompile(`\b(` + strings.Join(specDocs, "|") + `)(\.md\b|\s*§)`)
	// sectionRefRe is one section number after a document name, with what
	// may stand between it and the previous one: "§8.2", ", §8.3",
	// " rule 3, §14.3", " and §8.5", "-§10".
	sectionRefRe = regexp.MustCompile(`^(?:[\s,;:()–-]|\b(?:and|or|to)\b|\b(?:rules?|items?|steps?|vectors?)\s+\d+(?:\s*(?:[-–,]|and)\s*\d+)*)*§\s*(\d+(?:\.\d+)*)`)
	// openChoiceRe is a citation of one of BROKER.md's numbered decisions
	// ("BROKER.md O-4"); openChoiceDefRe finds them in BROKER.md itself.
	openChoiceRe    = regexp.MustCompile(`^\s*(O-\d+)`)
	openChoiceDefRe = regexp.MustCompile(`\bO-\d+\b`)
	// commentLeadRe is what starts a continued comment line.
	commentLeadRe = regexp.MustCompile(`^\s*(?://+|#+|/?\*+/?|;+)?\s*`)
)

// A specRef is one citation: a document, maybe a section or an open choice.
type specRef struct {
	file    string
	line    int
	doc     string // "PROTOCOL"
	section string // "8.3.1", or ""
	choice  string // "O-4", or ""
}

// TestSpecReferencesResolve checks that every citation of a specification
// document in the repository's code and docs names a document in docs/, and
// that a cited section number (or BROKER.md open choice) is a section of it.
func TestSpecReferencesResolve(t *testing.T) {
	root := repoRoot(t)
	targets := map[string]markdownDoc{}
	for _, name := range specDocs {
		if b, err := os.ReadFile(filepath.Join(root, "docs", name+".md")); err == nil {
			d := parseMarkdown(string(b))
			if name == "BROKER" {
				for _, c := range openChoiceDefRe.FindAllString(string(b), -1) {
					d.sections[c] = true
				}
			}
			targets[name] = d
		}
	}
	var refs []specRef
	for _, rel := range repoFiles(t, root, isSource) {
		if strings.HasPrefix(rel, "tests/docs/") {
			continue // the check names the documents itself
		}
		refs = append(refs, findSpecRefs(rel, readFile(t, root, rel))...)
	}
	missing := map[string]int{}
	for _, r := range refs {
		d, ok := targets[r.doc]
		switch {
		case !ok:
			t.Errorf("%s:%d: cites %s.md, which is not in docs/", r.file, r.line, r.doc)
		case r.section != "" && !d.sections[r.section]:
			missing[r.doc+".md §"+r.section]++
			t.Errorf("%s:%d: cites %s.md §%s, which docs/%s.md has no heading for", r.file, r.line, r.doc, r.section, r.doc)
		case r.choice != "" && !d.sections[r.choice]:
			t.Errorf("%s:%d: cites BROKER.md %s, which docs/BROKER.md does not list", r.file, r.line, r.choice)
		}
	}
	if len(missing) > 0 {
		keys := make([]string, 0, len(missing))
		for k := range missing {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		t.Logf("missing sections: %s", strings.Join(keys, ", "))
	}
	t.Logf("%d citations checked", len(refs))
}

// findSpecRefs returns the citations in text. A citation may run across
// comment lines ("PROTOCOL.md\n// §8.2"), so lines are joined, without
// their comment leaders, before matching.
func findSpecRefs(file, text string) []specRef {
	var joined strings.Builder
	var lineStarts []int
	for _, line := range strings.Split(text, "\n") {
		lineStarts = append(lineStarts, joined.Len())
		joined.WriteString(commentLeadRe.ReplaceAllString(line, ""))
		joined.WriteByte(' ')
	}
	s := joined.String()
	lineAt := func(off int) int { return sort.SearchInts(lineStarts, off+1) }
	var refs []specRef
	for _, m := range docNameRe.FindAllStringSubmatchIndex(s, -1) {
		if strings.HasSuffix(strings.TrimSpace(s[max(0, m[0]-10):m[0]]), "upstream") {
			continue // upstream's own document, not this project's
		}
		doc := s[m[2]:m[3]]
		base := specRef{file: file, line: lineAt(m[0]), doc: doc}
		rest := s[m[3]:]
		if strings.HasPrefix(rest, ".md") {
			rest = rest[3:]
		}
		if c := openChoiceRe.FindStringSubmatch(rest); c != nil && doc == "BROKER" {
			base.choice = c[1]
			refs = append(refs, base)
			continue
		}
		found := false
		for {
			sm := sectionRefRe.FindStringSubmatchIndex(rest)
			if sm == nil {
				break
			}
			r := base
			r.section = strings.TrimSuffix(rest[sm[2]:sm[3]], ".")
			refs = append(refs, r)
			found = true
			rest = rest[sm[1]:]
		}
		if !found {
			refs = append(refs, base)
		}
	}
	return refs
}
