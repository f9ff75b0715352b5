// Command weida-tour runs the patterns the weida CLI has no verb for —
// PAIR, SURVEY and BUS — end to end over QUIC on loopback, each party in
// its own runtime as it would be in its own process, and prints what each
// pattern did. With `queue ADDRESS` it plays producer and consumer on a
// queue that `weida broker` serves instead: the producer orders ACCEPTED,
// STORED and PROCESSED on each message and prints each as it arrives.
//
// It uses only the public weida API, checks every outcome against what
// SEMANTICS.md §2 and BROKER.md promise, and exits 1 at the first one that
// differs (2 for bad arguments), so build/demo.sh can run it as a step
// that proves something.
package main
