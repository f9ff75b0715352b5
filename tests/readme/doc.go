// Package readme runs the code blocks of the project's READMEs as programs:
// README.md, bindings/python/README.md, bindings/node/README.md and
// capi/README.md. Each fenced block in Go, Python, JavaScript or C is
// written to a file, built where its language builds, and run; it passes
// when it exits 0 within a minute. A block that is a fragment rather than a
// program says so with a line the rendered README shows nothing of, just
// before its fence:
//
//	<!-- readme: fragment -->
//
// Go blocks need only the Go toolchain. The others need what
// tests/readme/run.sh sets up and names in the environment: WEIDA_OUT (a
// build/lib.sh prefix: include/weida.h and lib/libweida.so) for C and
// Python, and WEIDA_NODE_PROJECT (a directory where the npm package is
// installed) for JavaScript. A language whose setting is missing is
// skipped, saying which setting.
//
//	tests/readme/run.sh             # build, install, run every block
//	go test ./tests/readme/         # Go blocks only (the rest skip)
package readme
