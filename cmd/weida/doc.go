// Command weida sends, requests and serves weida endpoints from a shell.
//
// The payload travels on stdin and stdout and nothing else does, so
// `weida request URL < in | sha256sum` means what it says; receipts, byte
// counts and diagnostics go to stderr. The one exception is serve, which
// prints the address it serves as the first line of stdout: that line is a
// client's whole configuration.
//
//	weida send    [--ca PATH] URL [FILE]
//	weida request [--ca PATH] URL [FILE]
//	weida serve   (--echo | --sink) URL [--identity PATH] [--cert-out PATH]
//	weida --help | -h | help
//	weida --version | -V
//
// Options may appear anywhere after the verb; the first other argument is
// the URL, the second the payload FILE (stdin when absent).
//
// The exit status tells a script what happened without parsing text: 0
// done, 1 any other failure (an unknown outcome included), 2 usage, 3 the
// peer refused the payload, 4 no endpoint at that path, 5 no reply will
// ever come, 6 the key that answered is not trusted, 7 the connection was
// lost or never made. The table lives in main.go.
//
// The verbs follow SURFACE.md §1. This stage has send, request and
// serve --echo / --sink; sub and serve --pub arrive with Pub/Sub.
package main
