package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOnlyCapiUsesCgoOrUnsafe is upstream's unsafe_guard, translated
// (SURFACE.md §4.2): the library and the CLI are memory-safe Go; only this
// package, the C boundary, may import "C" or "unsafe".
func TestOnlyCapiUsesCgoOrUnsafe(t *testing.T) {
	checked := 0
	for _, root := range []string{"../core", "../cmd"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			checked++
			for _, imp := range f.Imports {
				if p, _ := strconv.Unquote(imp.Path.Value); p == "C" || p == "unsafe" {
					t.Errorf("%s imports %q: only capi/ may", path, p)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 50 {
		t.Fatalf("checked only %d files: the walk is broken", checked)
	}
}
