package readme

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// readmes are the READMEs whose blocks run, relative to the repository.
var readmes = []string{"README.md", "bindings/python/README.md", "bindings/node/README.md", "capi/README.md"}

// blockTimeout bounds one block's build and run.
const blockTimeout = 90 * time.Second

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func TestReadmeBlocksRun(t *testing.T) {
	root := repoRoot(t)
	ran := 0
	for _, name := range readmes {
		blocks, err := Extract(filepath.Join(root, name), name)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range blocks {
			if b.Lang == "" || b.Fragment {
				continue
			}
			ran++
			t.Run(strings.ReplaceAll(b.File, "/", "_")+"_line"+strconv.Itoa(b.Line)+"_"+b.Lang, func(t *testing.T) {
				runBlock(t, root, b)
			})
		}
	}
	if ran == 0 {
		t.Fatal("no README block is a program: the READMEs have nothing to run")
	}
}

// runBlock builds and runs one block in a directory of its own.
func runBlock(t *testing.T, root string, b Block) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), blockTimeout)
	defer cancel()
	var steps [][]string
	env := os.Environ()
	switch b.Lang {
	case "go":
		goModule(t, root, dir)
		write(t, filepath.Join(dir, "main.go"), b.Code)
		steps = [][]string{{"go", "run", "."}}
		env = append(env, "GOFLAGS=-mod=mod")
	case "c":
		out := need(t, "WEIDA_OUT", "a build/lib.sh prefix")
		write(t, filepath.Join(dir, "main.c"), b.Code)
		steps = [][]string{
			{"gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-I" + filepath.Join(out, "include"), "-o", filepath.Join(dir, "main"),
				filepath.Join(dir, "main.c"), "-L" + filepath.Join(out, "lib"), "-lweida", "-lpthread", "-Wl,-rpath," + filepath.Join(out, "lib")},
			{filepath.Join(dir, "main")},
		}
	case "python":
		out := need(t, "WEIDA_OUT", "a build/lib.sh prefix")
		write(t, filepath.Join(dir, "main.py"), b.Code)
		steps = [][]string{{"python3", filepath.Join(dir, "main.py")}}
		env = append(env, "PYTHONPATH="+filepath.Join(root, "bindings", "python"),
			"WEIDA_LIBRARY="+filepath.Join(out, "lib", "libweida.so"))
	case "node":
		project := need(t, "WEIDA_NODE_PROJECT", "a directory with the npm package installed")
		// An .mjs beside the project's node_modules: the README's imports resolve there.
		file, err := os.CreateTemp(project, "readme-*.mjs")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(file.Name()) })
		write(t, file.Name(), b.Code)
		steps = [][]string{{"node", file.Name()}}
	}
	for _, step := range steps {
		cmd := exec.CommandContext(ctx, step[0], step[1:]...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if ctx.Err() != nil {
			t.Fatalf("%s:%d (%s) did not finish within %v:\n%s", b.File, b.Line, b.Lang, blockTimeout, out)
		}
		if err != nil {
			t.Fatalf("%s:%d (%s): %s: %v\n%s\n--- the block:\n%s", b.File, b.Line, b.Lang, step[0], err, out, b.Code)
		}
		t.Logf("%s:%d (%s) %s: ok %s", b.File, b.Line, b.Lang, filepath.Base(step[0]), strings.TrimSpace(string(out)))
	}
}

// goModule makes dir a module that uses this repository's module in place.
func goModule(t *testing.T, root, dir string) {
	t.Helper()
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "go.sum"), string(sum))
	write(t, filepath.Join(dir, "go.mod"), "module readmecheck\n\ngo 1.26.0\n\n"+
		"require github.com/weida-go/weida v0.0.0\n\nreplace github.com/weida-go/weida => "+root+"\n")
}

// need returns the environment setting name, or skips the block.
func need(t *testing.T, name, what string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		t.Skipf("%s is not set (%s); tests/readme/run.sh sets it", name, what)
	}
	return v
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The Go runner against a program of its own, so it is proved even while no
// README holds a Go program: it builds against this repository in place.
func TestGoRunnerBuildsAgainstTheRepository(t *testing.T) {
	runBlock(t, repoRoot(t), Block{File: "(test)", Line: 1, Lang: "go", Code: `package main

import weida "github.com/weida-go/weida/core"

func main() {
	rt, err := weida.NewRuntime(weida.Config{})
	if err != nil {
		panic(err)
	}
	rt.Shutdown()
}
`})
}
