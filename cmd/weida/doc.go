// Command weida sends, requests, subscribes and serves weida endpoints
// from a shell.
//
// The payload travels on stdin and stdout and nothing else does, so
// `weida request URL < in | sha256sum` means what it says; receipts, byte
// counts and diagnostics go to stderr. The exceptions are serve, which
// prints the address it serves as the first line of stdout, and broker,
// which prints one per queue: each line is a client's whole configuration.
//
//	weida send    [--ca PATH] [--trust FILE] [--timeout DURATION] URL [FILE|-]
//	weida request [--ca PATH] [--trust FILE] [--timeout DURATION] URL [FILE|-]
//	weida sub     [--ca PATH] [--trust FILE] [--timeout DURATION] [--filter F] [--count N] [--framing line|raw|nul|length] [--credit N [--no-settle]] URL
//	weida serve   (--echo | --sink | --pub) URL [--identity PATH] [--cert-out PATH]
//	weida broker  URL [--queue PATH[:DURABILITY][,...]] [--data DIR] [--config FILE] [--identity PATH] [--cert-out PATH]
//	weida completion bash|zsh|fish
//	weida --help | -h | help
//	weida --version | -V
//
// Options may appear anywhere after the verb; the first other argument is
// the URL, the second the payload FILE (stdin when absent or "-").
// --timeout bounds a dialling verb, connecting included: a verb it cuts
// short fails (exit 1, the timeout named), while sub without --count, whose
// ordinary end is being stopped, ends well. completion prints a script
// generated from the same verb tables the parser reads. On a terminal, a
// transfer above 8 MiB shows one progress line with its rate and, while it
// uploads, the time left; on a pipe nothing.
//
// Each verb is one pattern (SURFACE.md §1.2): send is a Pusher, request a
// Requester, sub a Subscriber (with --credit a queue's consumer, which
// grants credit and settles each message once stdout's reader took it);
// serve --echo is a Replier, --sink a Puller and --pub a Publisher fed
// one "TOPIC BODY" line of stdin per message.
// broker runs queues (package broker) and prints one address per queue;
// on SIGINT or SIGTERM it retires them within the drain deadline.
// Every verb ends with a drain of at most 5 s, so a finished transfer keeps
// its bytes; a stopping serve gives the work in hand that same deadline.
//
// The exit status tells a script what happened without parsing text: 0
// done, 1 any other failure (an unknown outcome included), 2 usage, 3 the
// peer refused the payload, 4 no endpoint at that path, 5 no reply will
// ever come, 6 the key that answered is not trusted, 7 the connection was
// lost or never made. The table lives in main.go.
//
// --trust FILE gives the dialling verbs a cluster's member keys (the file
// broker --trust-out writes), so one member's keyless URL reaches the
// queue's leader wherever it is.
package main
