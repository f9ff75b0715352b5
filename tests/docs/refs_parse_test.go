package docs

import (
	"reflect"
	"testing"
)

// TestFindSpecRefsForms pins the citation forms the code uses, so that the
// reference check cannot pass by failing to see them.
func TestFindSpecRefsForms(t *testing.T) {
	text := "// Package wire is the codec (PROTOCOL.md\n" +
		"// §4-§10) and more (SEMANTICS.md §2.3, §2.4).\n" +
		"See SURFACE §2.2's table; PROTOCOL.md §8.6.2 rule 3, §14.3 and §8.5.\n" +
		"Offers (BROKER.md O-4). Not ours: upstream PROTOCOL §6.5. Just CLUSTER.md.\n" +
		"Decision 0023 §4.1 names no document. BROKER is a word."
	type got struct {
		line             int
		doc, sec, choice string
	}
	var gots []got
	for _, r := range findSpecRefs("f.go", text) {
		gots = append(gots, got{r.line, r.doc, r.section, r.choice})
	}
	want := []got{
		{1, "PROTOCOL", "4", ""}, {1, "PROTOCOL", "10", ""},
		{2, "SEMANTICS", "2.3", ""}, {2, "SEMANTICS", "2.4", ""},
		{3, "SURFACE", "2.2", ""},
		{3, "PROTOCOL", "8.6.2", ""}, {3, "PROTOCOL", "14.3", ""}, {3, "PROTOCOL", "8.5", ""},
		{4, "BROKER", "", "O-4"}, {4, "CLUSTER", "", ""},
	}
	if !reflect.DeepEqual(gots, want) {
		t.Fatalf("citations:\n got %v\nwant %v", gots, want)
	}
}

// TestResolveLinkRefusals pins what a link may not do.
func TestResolveLinkRefusals(t *testing.T) {
	root := repoRoot(t)
	load := func(rel string) markdownDoc { return parseMarkdown(readFile(t, root, rel)) }
	for target, bad := range map[string]bool{
		"../shared/spec/PROTOCOL.md":       true,
		"/work/shared/spec/README.md":      true,
		"docs/NOPE.md":                     true,
		"docs/PROTOCOL.md#no-such-heading": true,
		"docs/PROTOCOL.md":                 false,
		"core/wire":                        false,
		"#layout":                          false,
	} {
		if why := resolveLink(root, "README.md", target, load); (why != "") != bad {
			t.Errorf("%q: resolveLink = %q, want refused %v", target, why, bad)
		}
	}
}
