package main

import (
	"context"
	"fmt"
	"time"

	weida "github.com/weida-go/weida/core"
)

// claimEcho registers a replier at path that answers every request with its
// own body, each on its own goroutine so a slow requester holds up no one
// else. One-way transfers to the path are refused Unsupported by the
// library: a replier takes exchanges only.
func claimEcho(l *weida.Listener, path string, con console) (serveLoop, error) {
	replier, err := l.Replier(path)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, finishBy func() time.Time) error {
		work := inHand{noun: "request"}
		defer work.finish(finishBy, con.err)
		for {
			ex, err := replier.AcceptStream(ctx)
			if err != nil {
				return err
			}
			work.begin()
			go func() {
				defer work.end()
				echo(ex, con)
			}()
		}
	}, nil
}

// echo answers one exchange and reports it on stderr.
func echo(ex *weida.IncomingExchange, con console) {
	defer ex.Close() // unanswered, the requester gets NO_REPLY instead of hanging
	n, err := echoBody(ex)
	if err != nil {
		fmt.Fprintf(con.err, "weida: request failed: %v\n", err)
		return
	}
	fmt.Fprintf(con.err, "echoed bytes=%d\n", n)
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
