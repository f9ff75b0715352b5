package weida

import (
	"context"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// poolKey identifies a pooled connection: one per dialled endpoint path and
// trust terms (PROTOCOL.md §2.6), so two paths never share a window.
type poolKey struct {
	addr     string // canonical URL, fingerprint and path included
	trust    string
	clientID string
}

// pooledConn is a dialled connection shared by the endpoints of one runtime
// that dial the same path under the same terms.
type pooledConn struct {
	key    poolKey
	conn   *transport.Conn
	router *connRouter
	refs   int
}

// acquire returns a live pooled connection for addr, dialling when none is.
func (rt *Runtime) acquire(ctx context.Context, addr Address, trust Trust, id *Identity) (*pooledConn, error) {
	key := poolKey{addr: addr.String(), trust: trust.Key()}
	if id != nil {
		key.clientID = id.Fingerprint().String()
	}
	rt.mu.Lock()
	if rt.closed {
		rt.mu.Unlock()
		return nil, errRuntimeClosed()
	}
	if pc, ok := rt.pool[key]; ok && pc.conn.Err() == nil {
		pc.refs++
		rt.mu.Unlock()
		return pc, nil
	}
	rt.mu.Unlock()

	router := &connRouter{rt: rt}
	conn, err := transport.Dial(ctx, addr, trust, id, rt.tcfg, router)
	rt.logDialled(addr, conn, err)
	if err != nil {
		return nil, err
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.closed {
		go conn.Close(wire.CodeShutdown, "runtime shutdown")
		return nil, errRuntimeClosed()
	}
	if pc, ok := rt.pool[key]; ok && pc.conn.Err() == nil {
		// Another endpoint dialled the same path meanwhile: share its connection.
		go conn.Close(wire.CodeNoError, "duplicate connection")
		pc.refs++
		return pc, nil
	}
	pc := &pooledConn{key: key, conn: conn, router: router, refs: 1}
	rt.pool[key] = pc
	return pc, nil
}

// release drops one reference. The last one closes the connection once its
// finished transfers have their receipts (bounded by the idle timeout), so
// bytes already handed to Finish are not cut short.
func (rt *Runtime) release(pc *pooledConn) {
	rt.mu.Lock()
	pc.refs--
	last := pc.refs == 0
	if last && rt.pool[pc.key] == pc {
		delete(rt.pool, pc.key)
	}
	rt.mu.Unlock()
	if !last {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), rt.tcfg.Limits.IdleTimeout+transport.DefaultIdleTimeout)
		defer cancel()
		awaitReceipts(ctx, pc.conn.OutstandingReceipts())
		_ = pc.conn.AwaitPeerConsumed(ctx)
		pc.conn.Close(wire.CodeNoError, "")
	}()
}

// awaitReceipts waits until every receipt resolved or ctx ends, and counts
// the ones that resolved delivered.
func awaitReceipts(ctx context.Context, receipts []*transport.Receipt) (delivered, outstanding int) {
	for _, r := range receipts {
		select {
		case <-r.Done():
		default:
			select {
			case <-r.Done():
			case <-ctx.Done():
				outstanding++
				continue
			}
		}
		if r.Err() == nil {
			delivered++
		}
	}
	return delivered, outstanding
}

func errRuntimeClosed() error { return errs.New(errs.KindRuntime, "the runtime was shut down") }
