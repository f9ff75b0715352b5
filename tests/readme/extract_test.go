package readme

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExtractFindsBlocksAndMarkers(t *testing.T) {
	md := "# t\n\n```go\npackage main\n```\n\n<!-- readme: fragment -->\n\n```python\nx = 1\n```\n\n```sh\nls\n```\n"
	path := filepath.Join(t.TempDir(), "R.md")
	if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	blocks, err := Extract(path, "R.md")
	if err != nil {
		t.Fatal(err)
	}
	want := []Block{
		{File: "R.md", Line: 3, Lang: "go", Code: "package main\n"},
		{File: "R.md", Line: 9, Lang: "python", Code: "x = 1\n", Fragment: true},
		{File: "R.md", Line: 13, Lang: "", Code: "ls\n"},
	}
	if len(blocks) != len(want) {
		t.Fatalf("got %d blocks, want %d: %+v", len(blocks), len(want), blocks)
	}
	for i := range want {
		if blocks[i] != want[i] {
			t.Errorf("block %d = %+v, want %+v", i, blocks[i], want[i])
		}
	}
}

func TestExtractRefusesAStrayMarker(t *testing.T) {
	for _, md := range []string{
		"<!-- readme: fragment -->\ntext, not a block\n```c\nint x;\n```\n",
		"```c\nint x;\n```\n<!-- readme: fragment -->\n",
		"```c\nint x;\n",
	} {
		path := filepath.Join(t.TempDir(), "R.md")
		if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Extract(path, "R.md"); err == nil || !strings.Contains(err.Error(), "R.md:") {
			t.Errorf("%q: error %v, want one naming the place", md, err)
		}
	}
}
