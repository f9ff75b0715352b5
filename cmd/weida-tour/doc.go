// Command weida-tour runs the patterns the weida CLI has no verb for —
// PAIR, SURVEY and BUS — end to end over QUIC on loopback, each party in
// its own runtime as it would be in its own process, and prints what each
// pattern did.
//
// It uses only the public weida API, checks every outcome against what
// SEMANTICS.md §2 promises, and exits 1 at the first one that differs, so
// build/demo.sh can run it as a step that proves something. It takes no
// arguments.
package main
