// Package zmq is the small part of libzmq (Debian's libzmq3-dev, ZeroMQ
// 4.3) the benchmarks drive through cgo: contexts, sockets, bind/connect,
// whole-message send and receive, and poll. It exists so the benchmark
// module needs no third-party Go binding; it is not part of weida.
//
// A Socket is used by one goroutine at a time (libzmq sockets are not
// thread-safe; Go's scheduler may move a goroutine between threads, which
// libzmq allows with the memory barrier the scheduler provides). Blocking
// calls stop the calling OS thread; Context.Shutdown makes every blocked
// call return ErrTerminated.
package zmq
