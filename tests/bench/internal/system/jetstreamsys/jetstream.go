// Package jetstreamsys runs the queue workloads on NATS JetStream: an
// embedded nats-server with JetStream on TCP loopback, one work-queue
// stream on one subject, nats.go's jetstream clients. A producer's
// confirm is the stream's PubAck (Publish waits for it; PublishAsync
// takes it in the connection's ack handler); a consumer is a durable pull
// consumer with explicit acknowledgement, each message acknowledged after
// it was taken.
package jetstreamsys

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// Storage is where a stream keeps its messages.
type Storage int

const (
	// Memory keeps them in the server's memory.
	Memory Storage = iota
	// File writes them to files, fsynced every sync interval (the server's
	// default: two minutes), like a Written queue.
	File
	// FileSyncAlways fsyncs every write before the PubAck (the server's
	// sync_always), like a Flushed queue.
	FileSyncAlways
)

// Queue is JetStream at one storage setting.
type Queue struct{ Storage Storage }

// Name implements system.QueueSystem.
func (q Queue) Name() string {
	switch q.Storage {
	case Memory:
		return "JetStream memory"
	case File:
		return "JetStream file"
	}
	return "JetStream file (sync always)"
}

// Available implements system.QueueSystem: JetStream is embedded.
func (Queue) Available() string { return "" }

// The stream, its one subject and the consumer.
const (
	streamName   = "BENCH"
	subject      = "bench.queue"
	consumerName = "bench"
)

// asyncWindow caps nats.go's own count of unacknowledged async publishes
// above anything the harness keeps in flight, so the harness's window is
// the one that binds.
const asyncWindow = 1 << 16

// StartQueue implements system.QueueSystem: a server with JetStream
// storing under dir, and the stream.
func (q Queue) StartQueue(ctx context.Context, dir string, maxSize int) (system.Server, error) {
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, NoLog: true, NoSigs: true,
		JetStream: true, StoreDir: dir, SyncAlways: q.Storage == FileSyncAlways})
	if err != nil {
		return nil, fmt.Errorf("jetstream: creating the server: %w", err)
	}
	ns.Start()
	b := &broker{ns: ns}
	if !ns.ReadyForConnections(10 * time.Second) {
		_ = b.Close()
		return nil, fmt.Errorf("jetstream: the server was not ready within 10 s")
	}
	nc, js, err := connect(ns.ClientURL())
	if err != nil {
		_ = b.Close()
		return nil, err
	}
	defer nc.Close()
	storage := jetstream.MemoryStorage
	if q.Storage != Memory {
		storage = jetstream.FileStorage
	}
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: streamName, Subjects: []string{subject},
		Storage: storage, Retention: jetstream.WorkQueuePolicy, MaxMsgSize: int32(maxSize)}); err != nil {
		_ = b.Close()
		return nil, fmt.Errorf("jetstream: creating the stream: %w", err)
	}
	return b, nil
}

// broker is an embedded server.
type broker struct{ ns *server.Server }

func (b *broker) Addr() string { return b.ns.ClientURL() }

func (b *broker) Close() error {
	b.ns.Shutdown()
	b.ns.WaitForShutdown()
	return nil
}

// connect opens a client connection and its JetStream context.
func connect(url string, opts ...jetstream.JetStreamOpt) (*nats.Conn, jetstream.JetStream, error) {
	nc, err := nats.Connect(url)
	if err != nil {
		return nil, nil, fmt.Errorf("jetstream: connecting to %s: %w", url, err)
	}
	js, err := jetstream.New(nc, opts...)
	if err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("jetstream: %w", err)
	}
	return nc, js, nil
}

// DialProducer implements system.QueueSystem.
func (Queue) DialProducer(_ context.Context, addr string, confirmed func(error)) (system.Producer, error) {
	nc, js, err := connect(addr,
		jetstream.WithPublishAsyncMaxPending(asyncWindow),
		jetstream.WithPublishAsyncAckHandler(func(jetstream.JetStream, *nats.Msg, *jetstream.PubAck) { confirmed(nil) }),
		jetstream.WithPublishAsyncErrHandler(func(_ jetstream.JetStream, _ *nats.Msg, err error) { confirmed(err) }))
	if err != nil {
		return nil, err
	}
	return &producer{nc: nc, js: js}, nil
}

// producer is a connection publishing to the stream's subject.
type producer struct {
	nc *nats.Conn
	js jetstream.JetStream
}

func (p *producer) Publish(ctx context.Context, payload []byte) error {
	_, err := p.js.Publish(ctx, subject, payload)
	return err
}

// PublishAsync hands JetStream a copy: its future keeps the message to
// send again should the stream not answer, after the caller reused the
// buffer (as weida's producer copies for its goroutine).
func (p *producer) PublishAsync(_ context.Context, payload []byte) error {
	_, err := p.js.PublishAsync(subject, bytes.Clone(payload))
	return err
}

func (p *producer) Close() error {
	p.nc.Close()
	return nil
}

// DialConsumer implements system.QueueSystem: a durable pull consumer
// with explicit acknowledgement, consumed by nats.go's Consume loop.
func (Queue) DialConsumer(ctx context.Context, addr string, _ int, received func([]byte)) (io.Closer, error) {
	return DialConsumerWith(ctx, addr, received)
}

// DialConsumerWith is DialConsumer with options for the Consume loop. It
// returns once the consumer has a leader: on a cluster a replicated
// consumer elects one after it is created, and a pull sent before that is
// lost until it expires.
func DialConsumerWith(ctx context.Context, addr string, received func([]byte), opts ...jetstream.PullConsumeOpt) (io.Closer, error) {
	nc, js, err := connect(addr)
	if err != nil {
		return nil, err
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, streamName, jetstream.ConsumerConfig{Durable: consumerName,
		AckPolicy: jetstream.AckExplicitPolicy})
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("jetstream: creating the consumer: %w", err)
	}
	if err := awaitConsumerLeader(ctx, cons); err != nil {
		nc.Close()
		return nil, err
	}
	cc, err := cons.Consume(func(m jetstream.Msg) {
		received(m.Data())
		_ = m.Ack() // an ack lost here is redelivered, and the harness would see a duplicate
	}, opts...)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("jetstream: consuming: %w", err)
	}
	return &consumer{nc: nc, cc: cc}, nil
}

// awaitConsumerLeader asks for the consumer's state until it names a
// leader (a server that is not a cluster has none to wait for).
func awaitConsumerLeader(ctx context.Context, cons jetstream.Consumer) error {
	for pause := 5 * time.Millisecond; ; pause = min(2*pause, 200*time.Millisecond) {
		info, err := cons.Info(ctx)
		if err == nil && (info.Cluster == nil || info.Cluster.Leader != "") {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("jetstream: the consumer has no leader: %w (last: %v)", ctx.Err(), err)
		case <-time.After(pause):
		}
	}
}

// consumer is a connection consuming the stream.
type consumer struct {
	nc *nats.Conn
	cc jetstream.ConsumeContext
}

func (c *consumer) Close() error {
	c.cc.Stop()
	c.nc.Close()
	return nil
}
