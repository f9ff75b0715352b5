// Package weidasys runs the benchmark workloads on weida through its
// pattern API (Replier/Requester, Puller/Pusher, Publisher/Subscriber),
// the way an application would, each endpoint in its own Runtime so every
// client has its own connection, with the default Config.
package weidasys

import (
	"context"
	"fmt"

	weida "github.com/weida-go/weida/core"
)

// System is weida.
type System struct{}

// Name implements system.System.
func (System) Name() string { return "weida" }

// Paths of the workloads' endpoints.
const (
	echoPath = "/echo"
	sinkPath = "/sink"
	pubPath  = "/pub"
	bulkPath = "/bulk"
	topic    = "bench.ticks"
)

// bound is a server runtime with one binding.
type bound struct {
	rt      *weida.Runtime
	binding *weida.Binding
}

// bind makes a server runtime listening on a kernel-chosen loopback port
// under a fresh identity.
func bind() (*bound, error) { return bindWith(weida.Config{}) }

// bindWith is bind with the runtime's configuration.
func bindWith(cfg weida.Config) (*bound, error) {
	rt, err := weida.NewRuntime(cfg)
	if err != nil {
		return nil, err
	}
	id, err := weida.GenerateIdentity()
	if err != nil {
		rt.Shutdown()
		return nil, err
	}
	b, err := rt.Listener().BindQUIC("127.0.0.1:0", id)
	if err != nil {
		rt.Shutdown()
		return nil, err
	}
	return &bound{rt: rt, binding: b}, nil
}

// clientRuntime makes a runtime for one dialling endpoint.
func clientRuntime() (*weida.Runtime, error) { return weida.NewRuntime(weida.Config{}) }

// expectLen checks a whole message's length.
func expectLen(got, want int) error {
	if got != want {
		return fmt.Errorf("weida: got %d bytes, want %d", got, want)
	}
	return nil
}

// connectOrShutdown runs connect and shuts rt down if it fails.
func connectOrShutdown(ctx context.Context, rt *weida.Runtime, connect func(context.Context, string) error, url string) error {
	if err := connect(ctx, url); err != nil {
		rt.Shutdown()
		return fmt.Errorf("weida: connecting to %s: %w", url, err)
	}
	return nil
}
