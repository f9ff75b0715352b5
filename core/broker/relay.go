package broker

import (
	"slices"
	"sync"

	weida "github.com/weida-go/weida/core"
)

// producerReport is the report a producer ordered on its message (DATA
// keys 9-11) and the broker's side of it (decision 0029 §4.3):
//
//  1. The levels the broker owns it answers itself: Accepted at admission,
//     Stored too when the queue has a store — its certificate, hop-local.
//  2. The levels only a consumer can answer — Processed and application
//     stages — it orders on each delivery, under its own report id.
//  3. A consumer's record for such a level is copied, (level, offset)
//     unchanged, onto this report, under the id the producer allocated.
//
// Only records read from a delivery's own report reach relay, so a
// relayed claim travels exactly one queue: nothing the broker receives as
// a producer is ever re-emitted (0029 §4.4, O-9). A level nobody reports
// stays absent (§4.5). The report ends at settlement once the consumer's
// report ended (or REPORT_DEADLINE passed), or when the queue closes (O-6).
type producerReport struct {
	reporter reporter
	conn     weida.PortConn // the producer's connection (zero in tests that fake the reporter)
	relayed  []uint64       // ordered levels only a consumer can answer, ascending
	once     sync.Once
	// The report ends once it was asked to (finish) and its admission is
	// over (admissionEnded): a delivery may settle, and ask, before the
	// admission goroutine certified, and the certificate must not be lost.
	mu            sync.Mutex
	finishAsked   bool
	admissionOver bool
}

// reporter is the producer's side of a report: *weida.Reporter.
type reporter interface {
	Levels() []uint64
	Report(level, offset uint64) error
	Finish() error
}

// newProducerReport wraps the producer's Reporter; nil when it ordered
// nothing.
func newProducerReport(r *weida.Reporter) *producerReport {
	if r == nil {
		return nil
	}
	return reportTo(r)
}

// reportTo is newProducerReport for any reporter.
func reportTo(r reporter) *producerReport {
	p := &producerReport{reporter: r}
	for _, l := range r.Levels() {
		if consumerAnswerable(l) {
			p.relayed = append(p.relayed, l)
		}
	}
	return p
}

// consumerAnswerable is the level space a queue cannot answer for itself:
// Processed (the consuming application's settlement) and the
// application's own stages (§10.1 rule 3).
func consumerAnswerable(level uint64) bool {
	return level == weida.Processed || level >= weida.ApplicationFloor
}

// certify reports the broker's own levels at the admitted length:
// Accepted, and Stored when certificate is Stored (the commit record
// exists by then, O-10). Only ordered levels are written; a report with
// nothing more to wait for ends here.
func (p *producerReport) certify(certificate, bodyLen uint64) {
	if p == nil {
		return
	}
	_ = p.reporter.Report(weida.Accepted, bodyLen)
	if certificate >= weida.Stored {
		_ = p.reporter.Report(weida.Stored, bodyLen)
	}
	if certificate == weida.Replicated {
		_ = p.reporter.Report(weida.Replicated, bodyLen)
	}
	if len(p.relayed) == 0 {
		p.finish()
	}
}

// deliveryOrder is what a delivery orders from its consumer: Processed,
// which settles it, and every consumer-answerable level the producer
// ordered.
func (p *producerReport) deliveryOrder() []uint64 {
	if p == nil {
		return []uint64{weida.Processed}
	}
	levels := append([]uint64{weida.Processed}, p.relayed...)
	slices.Sort(levels)
	return slices.Compact(levels)
}

// relay copies a consumer's records onto the producer's report: only the
// levels the producer ordered (the delivery may order Processed for the
// queue's own sake), only offsets within the body (a larger one measures
// nothing the producer sent), and never for a body that is no longer
// byte-identical to the producer's (0029 §4.3 rule 3). The Reporter keeps
// each level's maximum, so a repeat or a redelivery's lower offset
// changes nothing.
func (p *producerReport) relay(snap map[uint64]uint64, m *message) {
	if p == nil || m.reencoded {
		return
	}
	for _, level := range p.relayed {
		if off, ok := snap[level]; ok && off <= m.bodyLen {
			_ = p.reporter.Report(level, off)
		}
	}
}

// finish ends the producer's report, once, as soon as its admission is
// over (at once when it is).
func (p *producerReport) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.finishAsked = true
	over := p.admissionOver
	p.mu.Unlock()
	if over {
		p.once.Do(func() { _ = p.reporter.Finish() })
	}
}

// admissionEnded says the admission that started the report is done with
// it (certified, refused or given no verdict): a finish asked meanwhile
// happens now.
func (p *producerReport) admissionEnded() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.admissionOver = true
	asked := p.finishAsked
	p.mu.Unlock()
	if asked {
		p.once.Do(func() { _ = p.reporter.Finish() })
	}
}
