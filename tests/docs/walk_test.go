package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repoRoot is the repository's top folder, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", root, err)
	}
	return root
}

// skippedDirs are folders that hold build output or other projects' files,
// never the repository's own text.
var skippedDirs = map[string]bool{
	".git": true, "node_modules": true, "dist": true, "out": true,
	"__pycache__": true, ".venv": true, "venv": true, "build-root": true,
}

// sourceExts are the text files whose comments and prose may cite a
// specification document.
var sourceExts = map[string]bool{
	".go": true, ".md": true, ".py": true, ".pyi": true, ".js": true, ".mjs": true,
	".ts": true, ".c": true, ".h": true, ".sh": true, ".toml": true, ".txt": true,
}

// repoFiles returns the repository-relative, slash-separated paths of the
// regular files under root for which keep is true, in walk order.
func repoFiles(t *testing.T, root string, keep func(rel string) bool) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (skippedDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.Type().IsRegular() && keep(rel) {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func isMarkdown(rel string) bool { return strings.HasSuffix(rel, ".md") }

func isSource(rel string) bool {
	return sourceExts[filepath.Ext(rel)] || filepath.Base(rel) == "Makefile"
}

func readFile(t *testing.T, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
