package weida_test

import (
	"context"
	"fmt"
	"io"
	"log"

	weida "github.com/weida-go/weida/core"
)

// A server prints an address naming its key; a client that dials that
// address trusts exactly that key. One exchange is one QUIC stream.
func Example() {
	ctx := context.Background()

	server, _ := weida.NewRuntime(weida.Config{})
	defer server.Shutdown()
	id, _ := weida.GenerateIdentity()
	binding, err := server.Listener().BindQUIC("127.0.0.1:0", id)
	if err != nil {
		log.Fatal(err)
	}
	echo, _ := server.Listener().Acceptor("/echo")
	go func() {
		for {
			in, err := echo.Accept(ctx)
			if err != nil {
				return
			}
			if ex, ok := in.(*weida.IncomingExchange); ok {
				reply, _ := ex.Reply(weida.TransferMeta{})
				_, _ = io.Copy(reply, ex.Request())
				_, _ = reply.Finish()
			}
		}
	}()

	client, _ := weida.NewRuntime(weida.Config{})
	defer client.Shutdown()
	peer := client.Peer(weida.TrustByAddress())
	if err := peer.Connect(ctx, binding.URL("/echo")); err != nil {
		log.Fatal(err)
	}
	request, reply, _ := peer.OpenBi(ctx, weida.TransferMeta{})
	_, _ = request.Write([]byte("hello weida"))
	delivery, _ := request.Finish()
	in, err := reply.Recv(ctx)
	if err != nil {
		log.Fatal(err)
	}
	body, _ := in.Collect(1 << 20)
	fmt.Println(string(body))
	// The request's transport receipt: the server's QUIC stack holds every byte.
	fmt.Println("delivered:", delivery.Delivered(ctx) == nil)
	// Output:
	// hello weida
	// delivered: true
}
