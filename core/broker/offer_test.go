package broker

import (
	"errors"
	"strings"
	"testing"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/guarantee"
)

var (
	offerAccepted = guarantee.Set{Acknowledgement: guarantee.Accepted}
	offerWritten  = guarantee.Set{Acknowledgement: guarantee.Stored, Durability: guarantee.Written}
	offerFlushed  = guarantee.Set{Acknowledgement: guarantee.Stored, Durability: guarantee.Flushed}
	detect        = guarantee.Set{Ordering: guarantee.PerProducerDetect}
)

// durable is a Config of queues at /q0, /q1, … with the durabilities ds.
func durable(dir string, ds ...Durability) Config {
	c := Config{DataDir: dir}
	for i, d := range ds {
		c.Queues = append(c.Queues, QueueConfig{Path: "/q" + string(rune('0'+i)), Durability: d})
	}
	return c
}

func TestRuntimeConfigOffersWhatEveryQueueReaches(t *testing.T) {
	tests := []struct {
		name      string
		base      weida.Config
		cfg       Config
		wantOffer guarantee.Set
		serves    bool
	}{
		{"no queues leave the runtime plain", weida.Config{Guarantees: detect}, Config{}, guarantee.Set{}, false},
		{"memory", weida.Config{}, durable("d", Memory), offerAccepted, true},
		{"written", weida.Config{}, durable("d", Written), offerWritten, true},
		{"flushed", weida.Config{}, durable("d", Flushed, Flushed), offerFlushed, true},
		{"one memory queue among flushed ones", weida.Config{}, durable("d", Flushed, Memory, Flushed), offerAccepted, true},
		{"written beside flushed", weida.Config{}, durable("d", Flushed, Written), offerWritten, true},
		{"an unknown durability counts as memory", weida.Config{}, durable("d", Flushed, Durability(7)), offerAccepted, true},
		{"the requirement's other dimensions are offered too", weida.Config{Guarantees: detect}, durable("d", Memory),
			guarantee.Set{Acknowledgement: guarantee.Accepted, Ordering: guarantee.PerProducerDetect}, true},
		{"an offer above the queues is lowered to them", weida.Config{ServesQueues: true, Offer: offerFlushed}, durable("d", Memory),
			offerAccepted, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RuntimeConfig(tt.base, tt.cfg)
			if got.Offer != tt.wantOffer || got.ServesQueues != tt.serves || got.Guarantees != tt.base.Guarantees {
				t.Fatalf("Offer %v, ServesQueues %v, Guarantees %v; want %v, %v, %v",
					got.Offer, got.ServesQueues, got.Guarantees, tt.wantOffer, tt.serves, tt.base.Guarantees)
			}
			if _, err := weida.NewRuntime(got); err != nil {
				t.Fatalf("NewRuntime refuses what RuntimeConfig built: %v", err)
			}
		})
	}
}

func TestNewRefusesAnOfferItsQueuesDoNotReach(t *testing.T) {
	tests := []struct {
		name    string
		runtime Config // the queues the runtime's offer was built for
		broker  Config // the queues New is given
		want    string // "" = accepted
	}{
		{"the same queues", durable("", Memory), durable("", Memory), ""},
		{"stronger queues than the offer", durable("", Written), durable(t.TempDir(), Flushed), ""},
		{"no queues", durable("", Flushed), Config{}, ""},
		{"a memory queue under a Stored offer", durable("", Flushed), durable("", Memory),
			`broker: the runtime offers acknowledgement=Stored durability=Flushed, but the queue "/q0" is memory and confirms only acknowledgement=Accepted (acknowledgement Accepted does not reach Stored)`},
		{"a written queue under a flushed offer", durable("", Flushed), durable(t.TempDir(), Flushed, Written),
			`the queue "/q1" is written and confirms only acknowledgement=Stored durability=Written (durability Written does not reach Flushed)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := newRuntimeWith(t, RuntimeConfig(weida.Config{}, tt.runtime))
			b, err := New(rt, tt.broker)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				b.Close()
				return
			}
			if err == nil {
				b.Close()
				t.Fatalf("New accepted queues its runtime's offer overstates")
			}
			if kindOf(err) != weida.KindRuntime || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New: %v (%v), want Runtime naming %q", err, kindOf(err), tt.want)
			}
		})
	}
}

// TestNegotiationAgainstTheBroker dials a broker from clients requiring
// core, Accepted and Stored(Flushed): each connects and gets its level
// confirmed where the broker's queues all reach it, and fails at Connect,
// naming what falls short, where they do not (BROKER.md O-4).
func TestNegotiationAgainstTheBroker(t *testing.T) {
	requireAccepted := offerAccepted
	requireFlushed := offerFlushed
	tests := []struct {
		name    string
		queues  []Durability // the queue dialled is the first
		plain   bool         // the broker's runtime is not built by RuntimeConfig
		require guarantee.Set
		confirm uint64   // the level the queue confirms, on success
		want    []string // what the Negotiation error names, on failure
	}{
		{"a core client to a memory queue", []Durability{Memory}, false, guarantee.Set{}, weida.Accepted, nil},
		{"a core client to a plain runtime", []Durability{Memory}, true, guarantee.Set{}, weida.Accepted, nil},
		{"Accepted from a memory queue", []Durability{Memory}, false, requireAccepted, weida.Accepted, nil},
		{"Accepted from a flushed queue", []Durability{Flushed}, false, requireAccepted, weida.Stored, nil},
		{"Accepted from a plain runtime", []Durability{Memory}, true, requireAccepted, 0,
			[]string{"acknowledgement", "1 (TransportReceipt)", "2 (Accepted)"}},
		{"Stored(Flushed) from flushed queues", []Durability{Flushed, Flushed}, false, requireFlushed, weida.Stored, nil},
		{"Stored(Flushed) beside a memory queue", []Durability{Flushed, Memory}, false, requireFlushed, 0,
			[]string{"acknowledgement", "2 (Accepted)", "3 (Stored)"}},
		{"Stored(Flushed) from a written queue", []Durability{Written}, false, requireFlushed, 0,
			[]string{"durability", "0 (Written)", "1 (Flushed)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := durable(t.TempDir(), tt.queues...)
			rtCfg := RuntimeConfig(weida.Config{}, cfg)
			if tt.plain {
				rtCfg = weida.Config{}
			}
			tb := startBrokerOn(t, rtCfg, cfg)
			req := newRuntimeWith(t, weida.Config{Guarantees: tt.require}).Requester(weida.TrustByAddress())
			err := req.Connect(ctxFor(t), tb.binding.URL("/q0"))
			if tt.want != nil {
				if !errors.Is(err, weida.ErrNegotiation) {
					t.Fatalf("Connect: %v, want Negotiation", err)
				}
				for _, w := range tt.want {
					if !strings.Contains(err.Error(), w) {
						t.Fatalf("Connect: %q does not name %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			_, meta, err := req.RequestWith(ctxFor(t), weida.TransferMeta{}, []byte("job"), 16)
			if err != nil {
				t.Fatal(err)
			}
			if got, ok := meta.Achieved(); !ok || got != tt.confirm {
				t.Fatalf("confirmed %d (%v), want %d", got, ok, tt.confirm)
			}
		})
	}
}
