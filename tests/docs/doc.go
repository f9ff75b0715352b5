// Package docs checks the repository's documentation against itself: every
// relative link in its Markdown resolves to a file (and, for an #anchor, to
// a heading in it), every reference to one of the project's specification
// documents (PROTOCOL.md, SEMANTICS.md, BROKER.md, SURFACE.md, CLUSTER.md)
// names a document in docs/ and a section it has, and the golden vectors
// printed in docs/PROTOCOL.md are the bytes core/wire writes and reads.
//
// The checks read files only; they need no network and no build.
//
//	go test -count=1 ./tests/docs/
package docs
