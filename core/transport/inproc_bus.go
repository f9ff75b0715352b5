package transport

import (
	"context"
	"sync"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/identity"
)

// The in-process bus registry: a bus name is unique per process
// (PROTOCOL.md §12), so the registry is process-wide.
var inprocBuses = struct {
	sync.Mutex
	m       map[string]*inprocBinder
	waiters map[string]chan struct{} // closed when that bus is bound
}{m: make(map[string]*inprocBinder), waiters: make(map[string]chan struct{})}

// InprocBound returns a channel that is closed once a bus named bus is
// bound in this process — at once when it is bound now. An in-process
// redial waits on it instead of a timer (SEMANTICS.md §8.5).
func InprocBound(bus string) <-chan struct{} {
	inprocBuses.Lock()
	defer inprocBuses.Unlock()
	ch := make(chan struct{})
	if _, bound := inprocBuses.m[bus]; bound {
		close(ch)
		return ch
	}
	if w, ok := inprocBuses.waiters[bus]; ok {
		return w
	}
	inprocBuses.waiters[bus] = ch
	return ch
}

// inprocBinder is a bound bus: dialled connections wait in its queue until
// the listener's accept loop takes them.
type inprocBinder struct {
	bus      string
	incoming chan *inprocSide
	done     chan struct{}
	once     sync.Once
}

// ListenInproc binds the in-process bus named bus and serves every
// connection dialled to it with h. A bus that is already bound in this
// process is AddressInUse.
func ListenInproc(bus string, cfg Config, h Handler) (*Listener, error) {
	if err := validateBus(bus); err != nil {
		return nil, err
	}
	b := &inprocBinder{bus: bus, incoming: make(chan *inprocSide), done: make(chan struct{})}
	inprocBuses.Lock()
	if _, taken := inprocBuses.m[bus]; taken {
		inprocBuses.Unlock()
		return nil, errs.New(errs.KindAddressInUse, "the in-process bus %q is already bound in this process", bus)
	}
	inprocBuses.m[bus] = b
	if w, ok := inprocBuses.waiters[bus]; ok {
		close(w)
		delete(inprocBuses.waiters, bus)
	}
	inprocBuses.Unlock()
	return listenLocal(b, cfg, h), nil
}

func (b *inprocBinder) accept() (localLink, error) {
	select {
	case s := <-b.incoming:
		return s, nil
	case <-b.done:
		return nil, errs.New(errs.KindNotConnected, "the in-process bus %q was unbound", b.bus)
	}
}

func (b *inprocBinder) close() {
	b.once.Do(func() {
		inprocBuses.Lock()
		if inprocBuses.m[b.bus] == b {
			delete(inprocBuses.m, b.bus)
		}
		inprocBuses.Unlock()
		close(b.done)
	})
}

func (b *inprocBinder) addr() string { return b.bus }

func (b *inprocBinder) scheme() identity.Scheme { return identity.SchemeInproc }

// dialInproc connects to the bus addr names; nothing bound there is
// NotConnected.
func dialInproc(ctx context.Context, addr identity.Address, cfg Config, h Handler) (*Conn, error) {
	inprocBuses.Lock()
	b := inprocBuses.m[addr.Bus]
	inprocBuses.Unlock()
	if b == nil {
		return nil, errs.New(errs.KindNotConnected, "cannot connect to %s: no in-process bus named %q is bound", addr, addr.Bus)
	}
	ic := newInprocConn(addr.Bus, int(cfg.Limits.StreamReceiveWindow))
	select {
	case b.incoming <- &ic.sides[1]:
	case <-b.done:
		return nil, errs.New(errs.KindNotConnected, "cannot connect to %s: the bus was unbound", addr)
	case <-ctx.Done():
		return nil, errs.Wrap(errs.KindCanceled, ctx.Err(), "connect abandoned")
	}
	c := newLocalConn(&ic.sides[0], cfg, true, addr.Path, h)
	if err := c.start(ctx); err != nil {
		c.Close(0, "")
		return nil, err
	}
	return c, nil
}

// validateBus applies the bus-name rules of PROTOCOL.md §12 by parsing the
// address the bus would be dialled at, so binding and dialling judge a name
// the same way; a "/" (which would end the authority) is refused too.
func validateBus(bus string) error {
	a, err := identity.ParseAddress(string(identity.SchemeInproc) + "://" + bus + "/")
	if err != nil {
		return err
	}
	if a.Bus != bus {
		return errs.New(errs.KindInvalidAddress, "invalid bus name %q: it must not contain \"/\"", bus)
	}
	return nil
}
