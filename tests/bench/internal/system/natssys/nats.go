// Package natssys runs the benchmark workloads on NATS: an embedded
// nats-server on TCP loopback and nats.go clients, core NATS (no
// JetStream: nothing here is persistent). Request/reply is nats.go's
// Request to a responder subscription; one-way and fan-out are Publish to a
// subject with subscriptions on it; a bulk transfer is a run of chunks
// paced by the receiver's acknowledgements, since core NATS has no flow
// control of its own.
package natssys

import (
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// System is NATS.
type System struct{}

// Name implements system.System.
func (System) Name() string { return "NATS" }

// Subjects of the workloads.
const (
	echoSubject     = "bench.echo"
	sinkSubject     = "bench.sink"
	fanSubject      = "bench.fan"
	bulkDataSubject = "bench.bulk.data"
	bulkAckSubject  = "bench.bulk.ack"
)

// Server limits raised above nats-server's defaults so the workloads fit:
// a 1 MiB request plus headers exceeds the default 1 MB max_payload, and a
// subscriber briefly behind an unpaced one-way producer must not be cut
// off as a slow consumer at the default 64 MB.
const (
	maxPayload = 8 << 20
	maxPending = 512 << 20
)

// broker is an embedded nats-server with one client connection of the
// serving side.
type broker struct {
	ns *server.Server
	nc *nats.Conn
}

// startBroker starts a server on a kernel-chosen loopback port and
// connects the serving side's client.
func startBroker() (*broker, error) {
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT,
		NoLog: true, NoSigs: true, MaxPayload: maxPayload, MaxPending: maxPending})
	if err != nil {
		return nil, fmt.Errorf("nats: creating the server: %w", err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, fmt.Errorf("nats: the server was not ready within 10 s")
	}
	nc, err := connect(ns.ClientURL())
	if err != nil {
		ns.Shutdown()
		return nil, err
	}
	return &broker{ns: ns, nc: nc}, nil
}

func (b *broker) Addr() string { return b.ns.ClientURL() }

func (b *broker) Close() error {
	b.nc.Close()
	b.ns.Shutdown()
	b.ns.WaitForShutdown()
	return nil
}

// connect opens one client connection with nats.go's defaults.
func connect(url string) (*nats.Conn, error) {
	nc, err := nats.Connect(url)
	if err != nil {
		return nil, fmt.Errorf("nats: connecting to %s: %w", url, err)
	}
	return nc, nil
}

// subscribe subscribes with unbounded client-side pending limits (a
// benchmark's receiver is never cut off client-side) and flushes, so the
// server has the subscription when it returns.
func subscribe(nc *nats.Conn, subject string, cb nats.MsgHandler) error {
	sub, err := nc.Subscribe(subject, cb)
	if err != nil {
		return fmt.Errorf("nats: subscribing to %s: %w", subject, err)
	}
	if err := sub.SetPendingLimits(-1, -1); err != nil {
		return err
	}
	return nc.Flush()
}

// client is a dialled client connection.
type client struct{ nc *nats.Conn }

func (c *client) Close() error {
	c.nc.Close()
	return nil
}
