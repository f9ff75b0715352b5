package weida_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/guarantee"
)

var (
	ackAccepted = guarantee.Set{Acknowledgement: guarantee.Accepted}
	ackWritten  = guarantee.Set{Acknowledgement: guarantee.Stored, Durability: guarantee.Written}
	ackFlushed  = guarantee.Set{Acknowledgement: guarantee.Stored, Durability: guarantee.Flushed}
	orderDetect = guarantee.Set{Ordering: guarantee.PerProducerDetect}
)

// TestConfigOfferValidation covers every rule NewRuntime applies to Offer,
// ServesQueues and an acknowledgement requirement.
func TestConfigOfferValidation(t *testing.T) {
	tests := []struct {
		name string
		cfg  weida.Config
		want string // "" = accepted; else a substring of the Runtime error
	}{
		{"offer beyond the requirement", weida.Config{Offer: orderDetect}, ""},
		{"offer equal to the requirement", weida.Config{Guarantees: orderDetect, Offer: orderDetect}, ""},
		{"a queue runtime offering Accepted", weida.Config{ServesQueues: true, Offer: ackAccepted}, ""},
		{"a queue runtime offering Stored(Flushed)", weida.Config{ServesQueues: true, Offer: ackFlushed}, ""},
		{"a queue runtime offering core", weida.Config{ServesQueues: true}, ""},
		{"a client requiring Accepted", weida.Config{Guarantees: ackAccepted}, ""},
		{"a client requiring Stored(Flushed)", weida.Config{Guarantees: ackFlushed}, ""},

		{"offer below the requirement", weida.Config{Guarantees: orderDetect, Offer: guarantee.Set{Deduplication: guarantee.DedupBounded, DedupWindow: time.Second}},
			"config: Offer must reach Guarantees in every dimension, but its ordering None does not reach PerProducer(detect)"},
		{"an offered durability below the required one", weida.Config{Guarantees: ackFlushed, Offer: ackWritten},
			"config: Offer must reach Guarantees in every dimension, but its durability Written does not reach Flushed"},
		{"Accepted offered without ServesQueues", weida.Config{Offer: ackAccepted},
			"config: Offer acknowledgement Accepted needs ServesQueues"},
		{"Stored offered without ServesQueues", weida.Config{Offer: ackFlushed},
			"config: Offer acknowledgement Stored(Flushed) needs ServesQueues"},
		{"a client raising its own requirement", weida.Config{Guarantees: ackAccepted, Offer: ackWritten},
			"config: Offer acknowledgement Stored(Written) needs ServesQueues"},
		{"a queue runtime requiring Accepted", weida.Config{ServesQueues: true, Guarantees: ackAccepted, Offer: ackAccepted},
			"config: a runtime that serves queues requires acknowledgement TransportReceipt of its peers, not Accepted"},
		{"Replicated beyond the largest cluster", weida.Config{ServesQueues: true, Offer: guarantee.Set{Acknowledgement: guarantee.Replicated, Replicas: 7}},
			"config: Offer: guarantee set: acknowledgement Replicated(7) cannot be honoured"},
		{"a malformed offer", weida.Config{Offer: guarantee.Set{Durability: guarantee.Flushed}},
			"config: Offer: guarantee set: durability Flushed requires acknowledgement Stored or Replicated"},
		{"an offer this build cannot honour", weida.Config{Offer: guarantee.Set{Ordering: guarantee.PerKey}},
			"config: Offer: guarantee set: ordering PerKey cannot be honoured"},
		{"a requirement no peer of this build reaches", weida.Config{Guarantees: guarantee.Set{Acknowledgement: guarantee.Processed}},
			"guarantee set: acknowledgement Processed cannot be honoured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt, err := weida.NewRuntime(tt.cfg)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("NewRuntime: %v", err)
				}
				rt.Shutdown()
				return
			}
			if err == nil {
				rt.Shutdown()
				t.Fatalf("NewRuntime accepted %+v", tt.cfg)
			}
			// A malformed set is Runtime; a level no peer of this build
			// reaches is Unsupported.
			wantKind := weida.KindRuntime
			if strings.Contains(tt.want, "cannot be honoured") {
				wantKind = weida.KindUnsupported
			}
			if weida.KindOf(err) != wantKind || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("NewRuntime: %v, want a %v error naming %q", err, wantKind, tt.want)
			}
		})
	}
}

func TestOfferedDefaultsToGuarantees(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  weida.Config
		want guarantee.Set
	}{
		{"core", weida.Config{}, guarantee.Set{}},
		{"the requirement", weida.Config{Guarantees: orderDetect}, orderDetect},
		{"the offer", weida.Config{Offer: orderDetect}, orderDetect},
		{"a queue runtime's offer", weida.Config{ServesQueues: true, Offer: ackWritten}, ackWritten},
	} {
		if got := guaranteeRuntime(t, tt.cfg).Offered(); got != tt.want {
			t.Errorf("%s: Offered() = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestRuntimeRequiringAcknowledgementOnlyDials checks each way to bind
// refuses a runtime that requires Accepted or Stored and serves no queues:
// its HELLO would offer diallers a confirmation it never makes.
func TestRuntimeRequiringAcknowledgementOnlyDials(t *testing.T) {
	binds := []struct {
		name string
		bind func(*testing.T, *weida.Listener) (*weida.Binding, error)
	}{
		{"quic", func(t *testing.T, l *weida.Listener) (*weida.Binding, error) {
			id, err := weida.GenerateIdentity()
			if err != nil {
				t.Fatal(err)
			}
			return l.BindQUIC("127.0.0.1:0", id)
		}},
		{"inproc", func(t *testing.T, l *weida.Listener) (*weida.Binding, error) {
			return l.BindInproc(strings.ReplaceAll(t.Name(), "/", "."))
		}},
		{"unix", func(t *testing.T, l *weida.Listener) (*weida.Binding, error) {
			return l.BindUnix(filepath.Join(t.TempDir(), "s"))
		}},
	}
	for _, tt := range []struct {
		name  string
		cfg   weida.Config
		level string // "" = the binding is made
	}{
		{"requires Accepted", weida.Config{Guarantees: ackAccepted}, "Accepted"},
		{"requires Stored(Written)", weida.Config{Guarantees: ackWritten}, "Stored(Written)"},
		{"requires core, offers more", weida.Config{ServesQueues: true, Offer: ackAccepted}, ""},
		{"plain", weida.Config{}, ""},
	} {
		for _, b := range binds {
			t.Run(tt.name+"/"+b.name, func(t *testing.T) {
				binding, err := b.bind(t, guaranteeRuntime(t, tt.cfg).Listener())
				if tt.level == "" {
					if err != nil {
						t.Fatalf("bind: %v", err)
					}
					binding.Close()
					return
				}
				want := "bind: this runtime requires acknowledgement " + tt.level + " of its peers"
				if err == nil || weida.KindOf(err) != weida.KindRuntime || !strings.Contains(err.Error(), want) {
					t.Fatalf("bind: %v, want a Runtime error naming %q", err, want)
				}
			})
		}
	}
}

// TestGuaranteeOfferNegotiation runs a runtime that offers more than it
// requires against clients over QUIC: a core client connects, a client
// whose requirement the offer reaches connects, and one requiring an
// acknowledgement the server does not offer fails on both sides, naming it.
func TestGuaranteeOfferNegotiation(t *testing.T) {
	queueRuntime := func(offer guarantee.Set) weida.Config {
		return weida.Config{ServesQueues: true, Offer: offer}
	}
	tests := []struct {
		name   string
		server weida.Config
		client guarantee.Set
		want   []string // nil = success
	}{
		{"a core client against an offer beyond core", weida.Config{Offer: orderDetect}, guarantee.Set{}, nil},
		{"a requirement the offer reaches", weida.Config{Offer: orderDetect}, orderDetect, nil},
		{"a core client against a queue runtime", queueRuntime(ackAccepted), guarantee.Set{}, nil},
		{"Accepted against a queue runtime", queueRuntime(ackAccepted), ackAccepted, nil},
		{"Stored(Flushed) against a flushing queue runtime", queueRuntime(ackFlushed), ackFlushed, nil},
		{"Accepted against a plain runtime", weida.Config{}, ackAccepted,
			[]string{"acknowledgement", "1 (TransportReceipt)", "2 (Accepted)"}},
		{"Stored(Flushed) against Accepted", queueRuntime(ackAccepted), ackFlushed,
			[]string{"acknowledgement", "2 (Accepted)", "3 (Stored)"}},
		{"Stored(Flushed) against Stored(Written)", queueRuntime(ackWritten), ackFlushed,
			[]string{"durability", "0 (Written)", "1 (Flushed)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := guaranteeServe(t, tt.server)
			failed := srv.rt.Listener().NegotiationFailed()
			_, err := guaranteePeer(t, guaranteeRuntime(t, weida.Config{Guarantees: tt.client}), srv)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("connect: %v", err)
				}
				return
			}
			guaranteeWantNamed(t, "the dialler", err, tt.want)
			select {
			case <-failed:
			case <-ctxFor(t).Done():
				t.Fatal("the listener never recorded the failure")
			}
			got, _ := srv.rt.Listener().NegotiationFailures()
			guaranteeWantNamed(t, "the listener", got[0].Err, tt.want)
		})
	}
}
