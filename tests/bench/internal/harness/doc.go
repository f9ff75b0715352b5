// Package harness runs the benchmark workloads on every system under test
// and records what it measured.
//
// Workloads whose figure is a property of one process — the publisher's
// CPU in a fan-out, the peak RSS of a bulk transfer, the memory of idle
// connections — run that side in a child process (the harness binary
// re-executed with "child …"), talking to the parent over a line protocol
// on its stdin and stdout. The others run both ends in the harness process,
// over loopback, as weida's own benchmarks do.
//
// Three groups have systems of their own (Group.Columns): the persistent
// queue, measured on each queue stack at each storage setting, and the
// bindings twice, whose figures are the JSON lines each binding's
// benchmark script prints (run as a subprocess): once with both ends in
// the script, set beside the Go API's figures of the same run, and once
// with only the client in the script, against `weida serve` processes of
// the Go CLI, set beside the Go API's client against the same kind of
// process, measured in the same repetitions.
//
// Systems take turns within each repetition (rep 1 of every system, then
// rep 2, …), so a change in the machine's background load spreads over all
// of them instead of falling on one; each repetition starts with the next
// system, so none always runs first or after the same other one.
package harness
