// Package access decides who may use a broker's queues: which client keys
// may connect, and per queue which of them may produce and which may
// consume.
//
// Every decision is taken on the key the client proved in its TLS
// handshake and the path the transfer was dispatched to, never on anything
// a peer claims in a header (SEMANTICS.md §8.4). A refusal is REJECTED on
// the wire; there is no separate "unauthorised" error, on purpose.
//
// The rules come from a Rules value (the JSON "access" section of a broker
// configuration) compiled against the broker's queues into a Policy. A
// Guard holds the policy in force, swaps in a reloaded one atomically, and
// counts and logs refusals once per key, queue and action.
package access
