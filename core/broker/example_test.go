package broker_test

import (
	"context"
	"fmt"
	"log"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker"
)

// A producer pushes one message to a queue and orders Accepted and
// Processed; a consumer grants credit, handles the message and reports
// Processed. The producer hears both: Accepted is the broker's own
// certificate, Processed the consumer's report relayed one hop.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// The broker: one memory queue at /jobs, on a runtime that offers
	// Accepted (what the queue confirms at) and binds on loopback.
	cfg := broker.Config{Queues: []broker.QueueConfig{{Path: "/jobs"}}}
	rt, err := weida.NewRuntime(broker.RuntimeConfig(weida.Config{}, cfg))
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Shutdown()
	id, err := weida.GenerateIdentity()
	if err != nil {
		log.Fatal(err)
	}
	binding, err := rt.Listener().BindQUIC("127.0.0.1:0", id)
	if err != nil {
		log.Fatal(err)
	}
	b, err := broker.New(rt, cfg)
	if err != nil {
		log.Fatal(err)
	}
	go func() { _ = b.Serve(ctx) }()
	defer b.Close()
	url := binding.URL("/jobs")

	// The consumer: an ordinary subscriber that grants credit.
	consumerRT, _ := weida.NewRuntime(weida.Config{})
	defer consumerRT.Shutdown()
	consumer := consumerRT.Subscriber(weida.TrustByAddress())
	if err := consumer.Connect(ctx, url); err != nil {
		log.Fatal(err)
	}
	_ = consumer.Subscribe(ctx, "")
	_ = consumer.Grant(ctx, 10)

	// The producer: a pusher ordering Accepted and Processed.
	producerRT, _ := weida.NewRuntime(weida.Config{})
	defer producerRT.Shutdown()
	producer := producerRT.Pusher(weida.TrustByAddress())
	if err := producer.Connect(ctx, url); err != nil {
		log.Fatal(err)
	}
	cursors, err := producer.SendReporting(ctx, []byte("resize photo 42"),
		weida.ReportOrder{Levels: []uint64{weida.Accepted, weida.Processed}})
	if err != nil {
		log.Fatal(err)
	}
	defer cursors.Close()

	body, _, report, err := consumer.RecvReporting(ctx, 1<<20)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("consumer got %q\n", body)
	_ = report.Report(weida.Processed, uint64(len(body))) // handled: settle it
	_ = report.Finish()

	for {
		_, more, err := cursors.Changed(ctx)
		if err != nil || !more {
			break
		}
	}
	final := cursors.Snapshot()
	fmt.Println("producer: accepted at", final[weida.Accepted], "processed at", final[weida.Processed])
	// Output:
	// consumer got "resize photo 42"
	// producer: accepted at 15 processed at 15
}
