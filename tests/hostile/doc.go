// Package hostile holds weida's hostile-peer tests (issue 11 item 1). A raw
// quic-go peer (internal/rawpeer) attacks a weida victim in both
// roles — a raw client against a weida listener, and a raw server that a
// weida Requester or Peer dials — with every malformed input class of
// PROTOCOL.md §5.4, §14 and §15.3, the refusals of §8.6.2 and §11.4, floods
// past the stream, HELLO, subscription and connection budgets, and peers
// that never read.
//
// Every case asserts the exact close or stop code, that a bystander (a
// peer connected before the attack, which never redials) is still served
// on its original connection, and that the victim's goroutines and live
// heap stay within a stated bound and return to their baseline.
//
// The package has no library code: it is tests only (docs/RELIABILITY.md
// lists every case and the command that runs it).
package hostile
