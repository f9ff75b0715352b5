package broker

import (
	"context"
	"io"

	weida "github.com/weida-go/weida/core"
)

// unservedKeeper stands for a persistent queue the store refused to open:
// its journal or a payload a Flushed queue certified is corrupt (BROKER.md
// §13.3, recovery: refuse to serve that queue). The path stays registered
// so producers hear REJECTED with the reason rather than UNKNOWN_ENDPOINT,
// nothing is admitted or delivered there, and every other queue of the
// broker is served as usual. Its data is left exactly as found, for an
// operator.
type unservedKeeper struct{ err error }

func (k unservedKeeper) certificate() uint64                  { return weida.Stored }
func (k unservedKeeper) newBody() (bodySink, error)           { return nil, k.err }
func (k unservedKeeper) admit(bodySink, *message) error       { return k.err }
func (k unservedKeeper) open(*message) (io.ReadCloser, error) { return nil, k.err }
func (k unservedKeeper) settle(*message) error                { return k.err }
func (k unservedKeeper) attempted(*message) error             { return k.err }
func (k unservedKeeper) quarantine(*message, string) error    { return k.err }
func (k unservedKeeper) withdraw(*message)                    {}
func (k unservedKeeper) commitDelivery(context.Context, *message, uint64) error {
	return k.err
}
func (k unservedKeeper) close() error { return nil }
