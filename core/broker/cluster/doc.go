// Package cluster holds what the nodes of a replicated broker agree on
// before they talk: the cluster file, its members and queues, and the
// digest two members compare to learn that they read the same file.
//
// A cluster is 3 or 5 broker nodes. A node is known by its key; each
// member names its client URL (weida://sha256:<key>@host:port, the
// address producers and consumers dial) and its Raft address (host:port,
// the UDP port the nodes replicate over). Every member reads the same
// file; a node whose key is not a member refuses to start.
package cluster
