package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The header is hand-written; these tests hold it to the exports. A C
// caller compiles against weida.h alone, so a prototype that drifts from
// the Go signature is a silent ABI break: here it is a test failure.

const headerPath = "../include/weida.h"

// cSignature is one function as C sees it: normalized types, no names.
type cSignature struct {
	result string
	params []string
}

func (s cSignature) String() string {
	return s.result + " (" + strings.Join(s.params, ", ") + ")"
}

// normalizeC drops const (it does not change the ABI, and cgo cannot
// express it) and spacing around '*': "const char *const *" -> "char**".
func normalizeC(t string) string {
	t = regexp.MustCompile(`\bconst\b`).ReplaceAllString(t, " ")
	t = strings.Join(strings.Fields(t), " ")
	return strings.ReplaceAll(strings.ReplaceAll(t, " *", "*"), "* ", "*")
}

// headerPrototypes parses the function prototypes of weida.h.
func headerPrototypes(t *testing.T) map[string]cSignature {
	t.Helper()
	src := readHeader(t)
	src = regexp.MustCompile(`(?s)/\*.*?\*/`).ReplaceAllString(src, "")
	src = regexp.MustCompile(`(?m)^\s*#.*$`).ReplaceAllString(src, "")
	protos := regexp.MustCompile(`(?s)([A-Za-z_][\w\s\*]*?)\b(weida_\w+)\s*\(([^()]*)\)\s*;`)
	out := map[string]cSignature{}
	for _, m := range protos.FindAllStringSubmatch(src, -1) {
		result, name, list := m[1], m[2], strings.TrimSpace(m[3])
		if strings.Contains(result, "typedef") {
			continue
		}
		sig := cSignature{result: normalizeC(lastDeclarationPart(result))}
		if list != "void" && list != "" {
			for _, p := range strings.Split(list, ",") {
				sig.params = append(sig.params, normalizeC(dropParamName(p)))
			}
		}
		if _, dup := out[name]; dup {
			t.Errorf("weida.h declares %s twice", name)
		}
		out[name] = sig
	}
	return out
}

// lastDeclarationPart keeps what follows the previous declaration's end.
func lastDeclarationPart(s string) string {
	if i := strings.LastIndexAny(s, ";}"); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// dropParamName removes the parameter's name: "const void *data" -> "const void *".
func dropParamName(p string) string {
	p = strings.TrimSpace(p)
	return strings.TrimSpace(regexp.MustCompile(`[A-Za-z_]\w*$`).ReplaceAllString(p, ""))
}

// goExports parses every //export function of the package into C terms.
func goExports(t *testing.T) map[string]cSignature {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]cSignature{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Doc == nil || !hasExport(fn) {
				continue
			}
			name := fn.Name.Name
			sig := cSignature{result: "void"}
			if fn.Type.Results != nil && len(fn.Type.Results.List) == 1 {
				sig.result = cTypeOf(t, name, fn.Type.Results.List[0].Type)
			}
			for _, field := range fn.Type.Params.List {
				ct := cTypeOf(t, name, field.Type)
				names := len(field.Names)
				for i := 0; i < max(names, 1); i++ {
					// The user pointer is opaque to the library: it arrives as an
					// integer so that the Go collector never inspects a value
					// (Python may pass a small integer) as if it were a pointer.
					// The registers and ABI are those of void *.
					if names > 0 && field.Names[i].Name == "user" && ct == "uintptr_t" {
						ct = "void*"
					}
					sig.params = append(sig.params, ct)
				}
			}
			out[name] = sig
		}
	}
	return out
}

func hasExport(fn *ast.FuncDecl) bool {
	for _, c := range fn.Doc.List {
		if c.Text == "//export "+fn.Name.Name {
			return true
		}
	}
	return false
}

// cTypeOf maps a Go parameter type of an export to the C type cgo gives it.
func cTypeOf(t *testing.T, fn string, e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return cTypeOf(t, fn, x.X) + "*"
	case *ast.SelectorExpr:
		pkg, _ := x.X.(*ast.Ident)
		switch {
		case pkg != nil && pkg.Name == "C":
			return x.Sel.Name
		case pkg != nil && pkg.Name == "unsafe" && x.Sel.Name == "Pointer":
			return "void*"
		}
	}
	t.Errorf("%s: the export uses a type with no C spelling: %T", fn, e)
	return "?"
}

func readHeader(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(headerPath)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestHeaderMatchesExports(t *testing.T) {
	header, exports := headerPrototypes(t), goExports(t)
	if len(exports) < 100 {
		t.Fatalf("found only %d exports: the parser is broken", len(exports))
	}
	var names []string
	for name := range exports {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		h, ok := header[name]
		switch {
		case !ok:
			t.Errorf("%s is exported but weida.h does not declare it", name)
		case h.String() != exports[name].String():
			t.Errorf("%s disagrees:\n  weida.h: %s\n  export:  %s", name, h, exports[name])
		}
	}
	for name := range header {
		if _, ok := exports[name]; !ok {
			t.Errorf("weida.h declares %s but no function exports it", name)
		}
	}
}

// TestEveryExportRecovers: a panic must never unwind into C, so the first
// statement of every export defers one of the recover helpers.
func TestEveryExportRecovers(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	guards := map[string]bool{"recoverInto": true, "recoverText": true, "recoverNumber": true}
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Doc == nil || !hasExport(fn) {
				continue
			}
			seen++
			if !firstStatementDefersGuard(fn, guards) {
				t.Errorf("%s: the first statement must be `defer recoverInto(&rc)` (or recoverText/recoverNumber)", fn.Name.Name)
			}
		}
	}
	if seen < 100 {
		t.Fatalf("saw only %d exports", seen)
	}
}

func firstStatementDefersGuard(fn *ast.FuncDecl, guards map[string]bool) bool {
	if fn.Body == nil || len(fn.Body.List) == 0 {
		return false
	}
	d, ok := fn.Body.List[0].(*ast.DeferStmt)
	if !ok {
		return false
	}
	switch f := d.Call.Fun.(type) {
	case *ast.Ident:
		return guards[f.Name]
	case *ast.IndexExpr: // an explicitly instantiated generic guard
		id, ok := f.X.(*ast.Ident)
		return ok && guards[id.Name]
	}
	return false
}

func TestHeaderParserSeesEveryKindOfPrototype(t *testing.T) {
	// The parser must see through const, multi-line lists and (void).
	header := headerPrototypes(t)
	cases := map[string]string{
		"weida_version":               "char* ()",
		"weida_identity_generate_for": "int (char**, size_t, weida_identity_t*)",
		"weida_msg_data":              "int (weida_msg_t, void**, size_t*)",
		"weida_runtime_drain_async":   "int (weida_runtime_t, double, weida_done_fn, void*, weida_op_t*)",
	}
	for name, want := range cases {
		if got := header[name].String(); got != want {
			t.Errorf("%s parsed as %q, want %q", name, got, want)
		}
	}
}
