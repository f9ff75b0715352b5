package loss

import (
	"bytes"
	"sync"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/internal/latency"
	"github.com/weida-go/weida/internal/scale"
	"github.com/weida-go/weida/internal/udpproxy"
)

// TestHandshakesUnderLoss connects 8 (32 heavy) clients, each through its
// own proxy dropping 30 % of the handshake packets (and 2 % after), at
// once: every one connects and completes an exchange. Connect times are
// recorded.
func TestHandshakesUnderLoss(t *testing.T) {
	n := scale.Pick(8, 32)
	s := startServer(t)
	var (
		wg      sync.WaitGroup
		lat     latency.Recorder
		mu      sync.Mutex
		proxies []*udpproxy.Proxy
	)
	for i := range n {
		url, proxy := s.lossyURL(t, echoPath, uint64(100+i))
		proxies = append(proxies, proxy)
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := clientRuntime(t).Requester(weida.TrustByAddress())
			start := time.Now()
			if err := r.Connect(ctxFor(t, time.Minute), url); err != nil {
				t.Errorf("client %d: connect through 30%% handshake loss: %v", i, err)
				return
			}
			lat.Since(start)
			want := []byte("handshake survivor")
			if got, err := r.Request(ctxFor(t, time.Minute), want, 1<<10); err != nil || !bytes.Equal(got, want) {
				t.Errorf("client %d: request %q, %v", i, got, err)
			}
		}()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	dropped := 0
	for _, p := range proxies {
		dropped += p.Stats(udpproxy.ToServer).HandshakeDropped + p.Stats(udpproxy.ToClient).HandshakeDropped
	}
	if dropped == 0 {
		t.Fatal("no handshake packet was dropped: the test did not exercise handshake loss")
	}
	t.Logf("figure: %d connections through 30%% handshake loss, %d handshake datagrams dropped; connect time %s", n, dropped, lat.Summary())
}
