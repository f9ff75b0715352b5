package hostile

import (
	"bytes"
	"errors"
	"testing"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/wire"
	"github.com/weida-go/weida/internal/rawpeer"
	"github.com/weida-go/weida/internal/resources"
)

// servedWhileBlocked is how many bystander exchanges run while a write to
// a peer that never reads is held: progress elsewhere, not elapsed time,
// is the evidence that the victim is not stalled.
const servedWhileBlocked = 20

// TestServerPeerThatNeverReads: a raw client asks /big for an 8 MiB reply
// and never reads it. The replier's write blocks on QUIC flow control while
// the bystander keeps being served; when the peer goes, the blocked reply
// fails (it never reports success) and everything is released.
func TestServerPeerThatNeverReads(t *testing.T) {
	v := newVictim(t, weida.Config{})
	func() {
		c, err := rawpeer.Dial(ctxFor(t), v.url(echoPath), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		mustSend(t, c.Uni(rawpeer.Hello()))
		_, err = c.Bidi(rawpeer.Data(bigPath, []byte("send me 8 MiB")), true)
		mustSend(t, err)
		select {
		case <-v.bigAccepted:
		case <-ctxFor(t).Done():
			t.Fatal("the request for 8 MiB was never accepted")
		}
		for range servedWhileBlocked {
			echoOnce(t, v.bystander, "bystander")
		}
		select {
		case err := <-v.bigDone:
			t.Fatalf("an 8 MiB reply to a peer that reads nothing finished (%v)", err)
		default:
		}
	}()
	select {
	case err := <-v.bigDone:
		if err == nil {
			t.Fatal("the reply to a peer that left unread reported success")
		}
	case <-ctxFor(t).Done():
		t.Fatal("the reply stayed blocked after its peer left")
	}
	v.stillServes(t)
	v.settled(t)
}

// TestClientPeerThatNeverReads: a weida Peer sends 4 MiB to a raw server
// that never reads. The write blocks on flow control while the same
// runtime's bystander is served; Cancel releases it as Canceled.
func TestClientPeerThatNeverReads(t *testing.T) {
	cv := newClientVictim(t)
	t.Run("blocked", func(t *testing.T) {
		hs := startHostileServer(t, func(c *rawpeer.Conn) { _ = c.Uni(rawpeer.Hello()) })
		p := cv.rt.Peer(weida.TrustByAddress(), weida.WithReconnect(weida.NeverReconnect()))
		defer p.Close()
		if err := p.Connect(ctxFor(t), hs.url("/x")); err != nil {
			t.Fatalf("connect: %v", err)
		}
		out, err := p.Open(ctxFor(t), weida.TransferMeta{})
		if err != nil {
			t.Fatal(err)
		}
		wrote := make(chan error, 1)
		go func() {
			_, err := out.Write(make([]byte, 4<<20))
			wrote <- err
		}()
		for range servedWhileBlocked {
			echoOnce(t, cv.bystander, "bystander")
		}
		select {
		case err := <-wrote:
			t.Fatalf("a 4 MiB write to a peer that reads nothing returned (%v)", err)
		default:
		}
		out.Cancel()
		if err := <-wrote; !errors.Is(err, weida.ErrCanceled) {
			t.Fatalf("the blocked write ended with %v, want Canceled", err)
		}
	})
	cv.stillServes(t)
	cv.settled(t)
}

// TestSubscriberThatNeverReads: a raw client subscribes to a publisher and
// never reads its copies. The publisher never blocks: once the raw peer's
// windows and its 1 MiB subscriber budget are full, its copies are dropped
// and counted, while a well-behaved subscriber, paced by its own receipt,
// gets every copy intact; the victim's memory stays within the budget.
func TestSubscriberThatNeverReads(t *testing.T) {
	const budget, copies, size = 1 << 20, 48, 128 << 10
	v := newVictim(t, weida.Config{SubscriberBufferBytes: budget})
	func() {
		c, err := rawpeer.Dial(ctxFor(t), v.url(pubPath), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		mustSend(t, c.Uni(rawpeer.Hello()))
		mustSend(t, c.Uni(rawpeer.Encode(wire.KindSubscribe, &wire.Subscribe{Endpoint: pubPath, Filter: ""})))
		good := newClientRuntime(t).Subscriber(weida.TrustByAddress())
		defer good.Close()
		if err := good.Connect(ctxFor(t), v.url(pubPath)); err != nil {
			t.Fatal(err)
		}
		if err := good.Subscribe(ctxFor(t), "#"); err != nil {
			t.Fatal(err)
		}
		await(t, "both subscriptions", func() bool { return v.pub.FilterCount() == 2 })
		for i := range copies {
			payload := bytes.Repeat([]byte{byte(i)}, size)
			if reached, err := v.pub.Publish("t", payload); err != nil || reached < 1 {
				t.Fatalf("publish %d: reached %d, %v", i, reached, err)
			}
			got, _, err := good.Recv(ctxFor(t), size)
			if err != nil || !bytes.Equal(got, payload) {
				t.Fatalf("the good subscriber's copy %d: %d bytes, %v", i, len(got), err)
			}
		}
		drops, _ := v.pub.DroppedOn("t")
		if drops.Total == 0 || drops.Total != v.pub.Dropped() {
			t.Fatalf("drops %+v of %d copies, publisher total %d: the reader that never reads lost nothing", drops, copies, v.pub.Dropped())
		}
		if live, bound := v.base.LiveGrowth(), int64(4*budget); live > bound {
			t.Fatalf("a subscriber that never reads pinned %s, bound %s", resources.MiB(live), resources.MiB(bound))
		}
		t.Logf("figure: %d copies of %d KiB, %d dropped for the peer that never reads (%+v), 0 for the reader",
			copies, size>>10, drops.Total, drops)
	}()
	v.stillServes(t)
	v.settled(t)
}
