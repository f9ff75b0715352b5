package main

import (
	"context"
	"fmt"

	weida "github.com/weida-go/weida/core"
)

// claimEcho registers the echo at path: every exchange is answered with its
// own request body, each on its own goroutine so a slow requester holds up
// no one else.
func claimEcho(l *weida.Listener, path string, con console) (func(context.Context) error, error) {
	acc, err := l.Acceptor(path)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		for {
			in, err := acc.Accept(ctx)
			if err != nil {
				return err
			}
			switch in := in.(type) {
			case *weida.IncomingExchange:
				go echo(ctx, in, con)
			case *weida.IncomingTransfer:
				// A one-way transfer has no reply to carry the echo: refuse it
				// (REJECTED) rather than swallow it.
				_ = in.Close()
			}
		}
	}, nil
}

// echo answers one exchange and reports it on stderr. Failures while serve
// is stopping are the stop's doing, not the request's, and are not
// reported.
func echo(ctx context.Context, ex *weida.IncomingExchange, con console) {
	defer ex.Close() // unanswered, the requester gets NO_REPLY instead of hanging
	n, err := echoBody(ex)
	switch {
	case err == nil:
		fmt.Fprintf(con.err, "echoed bytes=%d\n", n)
	case ctx.Err() == nil:
		fmt.Fprintf(con.err, "weida: request failed: %v\n", err)
	}
}

// echoBody opens the reply at once and streams each piece of the request
// back as it arrives, so a request of any size passes through one piece of
// memory and the requester sees its first bytes before it has finished
// sending.
func echoBody(ex *weida.IncomingExchange) (int64, error) {
	req := ex.Request()
	defer req.Close() // after EOF a no-op; before it, stops the requester's writes
	reply, err := ex.Reply(echoMeta(req.Meta()))
	if err != nil {
		return 0, err
	}
	n, err := copyInPieces(reply, req, nil)
	if err != nil {
		reply.Cancel()
		return n, err
	}
	_, err = reply.Finish()
	return n, err
}

// echoMeta announces the request's length for the reply, which is the same
// bytes; like any content_len it is advisory.
func echoMeta(req weida.IncomingMeta) weida.TransferMeta {
	n, ok := req.ContentLen()
	return weida.TransferMeta{ContentLen: n, HasContentLen: ok}
}
