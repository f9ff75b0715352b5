package docs

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// schemeRe matches a link with a URL scheme (https:, mailto:, weida:...):
// those leave the repository on purpose and are not checked offline.
var schemeRe = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.\-]*:`)

// TestMarkdownLinksResolve checks every relative link in the repository's
// Markdown: the file (or folder) it names exists inside the repository, and
// an #anchor names a heading of that file.
func TestMarkdownLinksResolve(t *testing.T) {
	root := repoRoot(t)
	docs := map[string]markdownDoc{}
	load := func(rel string) markdownDoc {
		d, ok := docs[rel]
		if !ok {
			d = parseMarkdown(readFile(t, root, rel))
			docs[rel] = d
		}
		return d
	}
	files := repoFiles(t, root, isMarkdown)
	checked := 0
	for _, rel := range files {
		for _, l := range load(rel).links {
			if l.target == "" || schemeRe.MatchString(l.target) {
				continue
			}
			checked++
			if why := resolveLink(root, rel, l.target, load); why != "" {
				t.Errorf("%s:%d: link %q: %s", rel, l.line, l.target, why)
			}
		}
	}
	t.Logf("%d relative links in %d Markdown files resolve", checked, len(files))
}

// resolveLink returns why target, linked from the Markdown file from, does
// not resolve, or "" when it does.
func resolveLink(root, from, target string, load func(string) markdownDoc) string {
	file, anchor, _ := strings.Cut(target, "#")
	rel := from
	if file != "" {
		if strings.HasPrefix(file, "/") {
			return "an absolute path: link relative to the file instead"
		}
		rel = path.Clean(path.Join(path.Dir(from), file))
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return "points outside the repository"
		}
		info, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return "no such file in the repository"
		}
		if info.IsDir() {
			if anchor != "" {
				return "an anchor on a folder"
			}
			return ""
		}
	}
	if anchor == "" {
		return ""
	}
	if !isMarkdown(rel) {
		return "an anchor into a file that is not Markdown"
	}
	if !load(rel).anchors[strings.ToLower(anchor)] {
		return "no heading in " + rel + " has the anchor #" + anchor
	}
	return ""
}

// specFolderRe matches a path into the specification folder the project
// was built against, which users of the repository do not have.
var specFolderRe = regexp.MustCompile(`(\.\./)+shared/|/work/shared`)

// TestNothingPointsAtTheSpecFolder checks that no doc or comment sends its
// reader to the specification folder outside the repository: the project's
// own documents in docs/ are what it cites.
func TestNothingPointsAtTheSpecFolder(t *testing.T) {
	root := repoRoot(t)
	for _, rel := range repoFiles(t, root, isSource) {
		if strings.HasPrefix(rel, "tests/docs/") {
			continue // the check's own test cases name such paths
		}
		for i, line := range strings.Split(readFile(t, root, rel), "\n") {
			if specFolderRe.MatchString(line) {
				t.Errorf("%s:%d: points outside the repository: %s", rel, i+1, strings.TrimSpace(line))
			}
		}
	}
}
