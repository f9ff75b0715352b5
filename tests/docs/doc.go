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
//
// guide.sh, beside them, is the slower check of docs/GUIDE.md: it builds
// the library, the wheel and the npm package in a temporary folder and runs
// the guide's programs, comparing their output with the guide's.
package docs
