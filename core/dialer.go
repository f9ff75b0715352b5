package weida

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/transport"
)

// dialer is what every dialling endpoint shares (SEMANTICS.md §8.5): a set
// of slots, one per connected URL, each live or down; a background redial
// per down slot, pinned to the key its first connection proved; round-robin
// selection over live slots; and waiting for a live slot, bounded by the
// caller's context and Config.SendTimeout.
type dialer struct {
	rt     *Runtime
	trust  Trust
	id     *Identity
	policy ReconnectPolicy
	// inbound, when set, is claimed on every connection (a Subscriber's
	// copies, a dialling Paired's transfers).
	inbound route
	// onLive runs on every (re)connection before the slot is marked live,
	// e.g. to re-send subscriptions. An error fails the connect.
	onLive func(context.Context, *transport.Conn) error
	events eventHub

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every slot change
	slots   []*slot
	next    int
	closed  bool
	ctx     context.Context // ends when the endpoint closes: stops redials
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// slot is one connected URL.
type slot struct {
	url     string
	addr    Address
	pin     Fingerprint // the key the first connection proved
	pc      *pooledConn // nil while down
	cause   LossCause   // why it went down
	lastErr error
	gaveUp  bool
	redials int
	liveAt  time.Time
	// cluster is set for a slot that reaches a replicated queue's leader
	// (a cluster address, or a URL that answered NOT_LEADER): cluster.go.
	cluster *clusterView
	stop    chan struct{}   // closed when pc's watch must end without a redial (repoint)
	checked *transport.Conn // the connection ensureLeader confirmed (redirect.go)
}

func newDialer(rt *Runtime, trust Trust, opts []EndpointOption) *dialer {
	d := &dialer{rt: rt, trust: trust, policy: rt.cfg.Reconnect, changed: make(chan struct{})}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	var o endpointOptions
	for _, opt := range opts {
		opt(&o)
	}
	d.id = o.identity
	if o.policy != nil {
		d.policy = *o.policy
	}
	rt.mu.Lock()
	if rt.closed {
		d.closed = true
		d.cancel()
	} else {
		rt.dialers[d] = struct{}{}
	}
	rt.mu.Unlock()
	return d
}

// EndpointOption configures a dialling endpoint.
type EndpointOption func(*endpointOptions)

type endpointOptions struct {
	identity *Identity
	policy   *ReconnectPolicy
}

// WithClientIdentity presents id to servers (mutual TLS); without it the
// endpoint is anonymous.
func WithClientIdentity(id *Identity) EndpointOption {
	return func(o *endpointOptions) { o.identity = id }
}

// WithReconnect overrides the runtime's reconnect policy for one endpoint.
func WithReconnect(p ReconnectPolicy) EndpointOption {
	return func(o *endpointOptions) { o.policy = &p }
}

// connect dials url and records a live slot. Connecting a URL the endpoint
// already has is a no-op.
func (d *dialer) connect(ctx context.Context, url string) error {
	cluster, addr, isCluster, err := parseClusterAddress(url)
	if err != nil {
		return err
	}
	if !isCluster {
		if addr, err = identity.ParseAddress(url); err != nil {
			return err
		}
	}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return errEndpointClosed()
	}
	for _, s := range d.slots {
		if s.url == url && !s.gaveUp {
			d.mu.Unlock()
			return nil
		}
	}
	d.mu.Unlock()

	s := &slot{url: url, addr: addr, cluster: cluster}
	pc, err := d.openSlot(ctx, s)
	if err != nil {
		return err
	}
	s.pin, _ = pc.conn.Peer()
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		d.drop(pc)
		return errEndpointClosed()
	}
	d.slots = append(d.slots, s)
	d.mu.Unlock()
	d.goLive(s, pc)
	return nil
}

// open acquires a pooled connection and prepares it for this endpoint.
func (d *dialer) open(ctx context.Context, addr Address) (*pooledConn, error) {
	pc, err := d.rt.acquire(ctx, addr, d.trust, d.id)
	if err != nil {
		return nil, err
	}
	if d.inbound != nil {
		if err := pc.router.claim(d.inbound); err != nil {
			d.rt.release(pc)
			return nil, err
		}
	}
	if d.onLive != nil {
		if err := d.onLive(ctx, pc.conn); err != nil {
			d.drop(pc)
			return nil, err
		}
	}
	return pc, nil
}

// drop gives a connection back to the pool.
func (d *dialer) drop(pc *pooledConn) {
	if d.inbound != nil {
		pc.router.release(d.inbound)
	}
	d.rt.release(pc)
}

// goLive marks s live on pc and watches the connection.
func (d *dialer) goLive(s *slot, pc *pooledConn) {
	stop := make(chan struct{})
	d.mu.Lock()
	s.pc, s.liveAt, s.lastErr, s.stop = pc, time.Now(), nil, stop
	d.notifyLocked()
	d.mu.Unlock()
	fp, _ := pc.conn.Peer()
	d.events.emit(PeerEvent{Kind: EventConnected, URL: s.url, Fingerprint: fp})
	d.wg.Add(1)
	go d.watch(s, pc, stop)
}

// watch waits for the slot's connection to end, then redials under the policy.
func (d *dialer) watch(s *slot, pc *pooledConn, stop <-chan struct{}) {
	defer d.wg.Done()
	select {
	case <-pc.conn.Done():
	case <-stop: // repointed to the leader: repoint gives pc back
		return
	case <-d.ctx.Done():
		return
	}
	err := pc.conn.Err()
	var e *errs.Error
	cause := errs.CauseTransportError
	if errors.As(err, &e) && e.Cause != errs.CauseNone {
		cause = e.Cause
	}
	d.mu.Lock()
	if d.closed || s.pc != pc { // closed, or repointed as pc ended
		d.mu.Unlock()
		return
	}
	if notLeaderOf(err) != nil {
		s.clusterOfLocked() // the member lost the queue's leadership: search on redial
	}
	s.pc, s.cause, s.lastErr = nil, cause, err
	d.notifyLocked()
	d.mu.Unlock()
	d.drop(pc)
	d.events.emit(PeerEvent{Kind: EventLost, URL: s.url, Cause: cause})
	if d.policy.Never || cause == errs.CauseLocallyClosed {
		d.giveUp(s, cause, false)
		return
	}
	d.redial(s)
}

// redial retries s with backoff until it is live again, the policy gives up,
// the address answers with another key (PeerChanged), or the endpoint closes.
func (d *dialer) redial(s *slot) {
	downAt := time.Now()
	addr := s.addr
	if s.pin != (Fingerprint{}) {
		addr.Fingerprint, addr.HasFingerprint = s.pin, true
	}
	for attempt := 1; ; attempt++ {
		delay := d.policy.delay(attempt)
		bound := inprocBusWait(addr, attempt)
		if bound != nil {
			delay = 0
		}
		d.events.emit(PeerEvent{Kind: EventRetrying, URL: s.url, Attempt: attempt, Delay: delay})
		if !d.redialWait(delay, bound, downAt) {
			return
		}
		pc, err := d.redialOnce(s, addr)
		if err == nil {
			d.mu.Lock()
			closed := d.closed
			s.redials++
			d.mu.Unlock()
			if closed {
				d.drop(pc)
				return
			}
			d.goLive(s, pc)
			return
		}
		d.mu.Lock()
		s.lastErr = err
		d.mu.Unlock()
		if errors.Is(err, errs.ErrUntrusted) {
			d.giveUp(s, s.cause, true)
			return
		}
		if errors.Is(err, errs.ErrRuntime) {
			return // the runtime was shut down
		}
		if d.policy.exhausted(attempt, downAt) {
			d.giveUp(s, s.cause, false)
			return
		}
	}
}

func (d *dialer) giveUp(s *slot, cause LossCause, peerChanged bool) {
	d.mu.Lock()
	s.gaveUp = true
	d.notifyLocked()
	d.mu.Unlock()
	d.events.emit(PeerEvent{Kind: EventGaveUp, URL: s.url, Cause: cause, PeerChanged: peerChanged})
}

func (d *dialer) notifyLocked() {
	close(d.changed)
	d.changed = make(chan struct{})
}

// live waits for the next live connection, round-robin. With no slot at all
// it is NotConnected at once; with every slot given up, ConnectionLost with
// the last cause; past Config.SendTimeout, Expired carrying that cause.
func (d *dialer) live(ctx context.Context) (*transport.Conn, error) {
	var timeout <-chan time.Time
	if st := d.rt.cfg.SendTimeout; st > 0 {
		t := time.NewTimer(st)
		defer t.Stop()
		timeout = t.C
	}
	for {
		d.mu.Lock()
		conn, last, err := d.pickLocked()
		changed := d.changed
		d.mu.Unlock()
		if conn != nil || err != nil {
			return conn, err
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, errs.Wrap(errs.KindCanceled, ctx.Err(), "stopped waiting for a live connection")
		case <-timeout:
			return nil, &errs.Error{Kind: errs.KindExpired, Cause: last.cause, Err: last.lastErr,
				Msg: "send timeout: no live connection (last loss: " + last.cause.String() + ")"}
		}
	}
}

// endedUnderOpen reports whether opening a transfer on c failed because c
// ended between the pick and the open. Nothing of the transfer reached the
// peer whole (no FIN was sent), so the caller picks again instead of failing:
// c is no longer live (its Err is set by the failed open itself), so the
// next pick takes another connection or waits for the redial.
func endedUnderOpen(c *transport.Conn, err error) bool {
	return err != nil && errs.KindOf(err) == errs.KindConnectionLost && c.Err() != nil
}

// openTransfer opens a one-way transfer on a live connection, picking again
// when the picked one ended under the open (endedUnderOpen).
func (d *dialer) openTransfer(ctx context.Context, meta TransferMeta) (*OutgoingTransfer, error) {
	for {
		c, err := d.live(ctx)
		if err != nil {
			return nil, err
		}
		if moved, err := d.queueLeader(ctx, c, meta); err != nil {
			return nil, err
		} else if moved {
			continue
		}
		out, err := openTransfer(ctx, c, meta)
		if !endedUnderOpen(c, err) {
			return out, err
		}
	}
}

// openExchange opens an exchange on a live connection, picking again when
// the picked one ended under the open (endedUnderOpen).
func (d *dialer) openExchange(ctx context.Context, meta TransferMeta) (*OutgoingTransfer, *ReplyStream, error) {
	for {
		c, err := d.live(ctx)
		if err != nil {
			return nil, nil, err
		}
		if moved, err := d.queueLeader(ctx, c, meta); err != nil {
			return nil, nil, err
		} else if moved {
			continue
		}
		out, reply, err := openExchange(ctx, c, meta)
		if !endedUnderOpen(c, err) {
			return out, reply, err
		}
	}
}

// pickLocked returns a live connection, or a final error, or neither (wait).
func (d *dialer) pickLocked() (*transport.Conn, *slot, error) {
	if d.closed {
		return nil, nil, errEndpointClosed()
	}
	if len(d.slots) == 0 {
		return nil, nil, errs.New(errs.KindNotConnected, "not connected: call Connect first")
	}
	var last *slot
	waiting := false
	for range d.slots {
		s := d.slots[d.next%len(d.slots)]
		d.next++
		if s.pc != nil && s.pc.conn.Err() == nil {
			return s.pc.conn, nil, nil
		}
		last = s
		waiting = waiting || !s.gaveUp
	}
	if waiting {
		return nil, last, nil
	}
	return nil, last, &errs.Error{Kind: errs.KindConnectionLost, Cause: last.cause, Err: last.lastErr,
		Msg: "connection lost and not redialled (" + last.cause.String() + ")"}
}

// liveConns returns every live connection (fan-out patterns ask them all).
func (d *dialer) liveConns() []*transport.Conn {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []*transport.Conn
	for _, s := range d.slots {
		if s.pc != nil && s.pc.conn.Err() == nil {
			out = append(out, s.pc.conn)
		}
	}
	return out
}

// peerCount counts live slots.
func (d *dialer) peerCount() int { return len(d.liveConns()) }

// hasSlots reports whether connect ever succeeded and a slot remains.
func (d *dialer) hasSlots() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.slots) > 0
}

// disconnect removes url's slot; it reports whether there was one.
func (d *dialer) disconnect(url string) bool {
	d.mu.Lock()
	var found *slot
	for i, s := range d.slots {
		if s.url == url {
			found = s
			d.slots = append(d.slots[:i], d.slots[i+1:]...)
			break
		}
	}
	pc := (*pooledConn)(nil)
	if found != nil {
		pc, found.pc, found.gaveUp = found.pc, nil, true
		d.notifyLocked()
	}
	d.mu.Unlock()
	if pc != nil {
		d.drop(pc)
	}
	return found != nil
}

// close releases every slot and stops redialling.
func (d *dialer) close() {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return
	}
	d.closed = true
	d.cancel()
	var pcs []*pooledConn
	for _, s := range d.slots {
		if s.pc != nil {
			pcs = append(pcs, s.pc)
			s.pc = nil
		}
	}
	d.notifyLocked()
	d.mu.Unlock()
	for _, pc := range pcs {
		d.drop(pc)
	}
	d.wg.Wait()
	d.rt.mu.Lock()
	delete(d.rt.dialers, d)
	d.rt.mu.Unlock()
}

func errEndpointClosed() error { return errs.New(errs.KindCanceled, "the endpoint was closed") }
