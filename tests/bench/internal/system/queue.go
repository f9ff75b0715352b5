package system

import (
	"context"
	"io"
)

// QueueSystem is a persistent-queue stack at one storage setting: a broker
// holding one queue, producers that want a confirm per message, consumers
// that acknowledge what they took. Only weida's broker and NATS JetStream
// have one, so it is a contract of its own beside System.
type QueueSystem interface {
	// Name is the stack and its storage setting as the report shows them
	// ("weida flushed", "JetStream file").
	Name() string
	// Available is "" when the stack can run here, else why it cannot (a
	// broker not built yet); the report shows the reason instead of figures.
	Available() string

	// StartQueue starts a broker with one queue for messages of at most
	// maxSize bytes, keeping whatever it stores under dir (a fresh empty
	// directory the harness removes afterwards).
	StartQueue(ctx context.Context, dir string, maxSize int) (Server, error)
	// DialProducer connects one producer; confirmed receives the outcome of
	// each PublishAsync, in any order and from any goroutine.
	DialProducer(ctx context.Context, addr string, confirmed func(error)) (Producer, error)
	// DialConsumer connects one consumer that takes every message, hands
	// its payload to received (valid only during the call) and then
	// acknowledges it, the way the stack settles a message for good.
	DialConsumer(ctx context.Context, addr string, maxSize int, received func(payload []byte)) (io.Closer, error)
}

// Producer publishes to a queue.
type Producer interface {
	// Publish sends payload and returns once the queue confirmed it at the
	// stack's storage setting.
	Publish(ctx context.Context, payload []byte) error
	// PublishAsync sends payload and returns without waiting for the
	// confirm, which goes to the confirmed function given at dial; the
	// caller bounds how many are in flight, and may reuse payload as soon
	// as PublishAsync returns (confirms come in any order, so the caller
	// cannot tell when a given message's is in).
	PublishAsync(ctx context.Context, payload []byte) error
	io.Closer
}

// WithoutConsumer is implemented by a queue stack that has no consumer
// side (a reference that stores nothing); its DialConsumer fails, and the
// cases that need a consumer show the reason instead of figures.
type WithoutConsumer interface {
	// WithoutConsumer says why there is no consumer.
	WithoutConsumer() string
}

// ConsumerMissing is why q has no consumer, or "" when it has one.
func ConsumerMissing(q QueueSystem) string {
	if w, ok := q.(WithoutConsumer); ok {
		return w.WithoutConsumer()
	}
	return ""
}
