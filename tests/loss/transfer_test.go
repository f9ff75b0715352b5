package loss

import (
	"crypto/sha256"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/internal/scale"
	"github.com/weida-go/weida/internal/udpproxy"
)

// TestTransferUnderLoss streams one large payload (8 MiB, 64 MiB heavy)
// through the lossy path: it arrives byte-exact (length and SHA-256), its
// receipt resolves as delivered, and the proxy really dropped, duplicated
// and reordered packets on the way.
func TestTransferUnderLoss(t *testing.T) {
	size := scale.Pick[int64](8<<20, 64<<20)
	s := startServer(t)
	url, proxy := s.lossyURL(t, sinkPath, 11)
	p := clientRuntime(t).Peer(weida.TrustByAddress())
	if err := p.Connect(ctxFor(t, time.Minute), url); err != nil {
		t.Fatalf("connect through 30%% handshake loss: %v", err)
	}

	type result struct {
		n   int64
		sum [sha256.Size]byte
		err error
	}
	received := make(chan result, 1)
	go func() {
		in, err := s.sink.RecvStream(ctxFor(t, 5*time.Minute))
		if err != nil {
			received <- result{err: err}
			return
		}
		h := sha256.New()
		n, err := io.Copy(h, in)
		received <- result{n: n, sum: [sha256.Size]byte(h.Sum(nil)), err: err}
	}()

	start := time.Now()
	out, err := p.Open(ctxFor(t, time.Minute), weida.TransferMeta{})
	if err != nil {
		t.Fatal(err)
	}
	sent, sum := writeRandom(t, out, size, 42)
	d, err := out.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Delivered(ctxFor(t, 5*time.Minute)); err != nil {
		t.Fatalf("the receipt of a transfer that arrived: %v", err)
	}
	elapsed := time.Since(start)
	got := <-received
	if got.err != nil || got.n != sent || got.sum != sum {
		t.Fatalf("received %d bytes (%v), sha256 match %v; sent %d", got.n, got.err, got.sum == sum, sent)
	}
	t.Logf("figure: %d MiB byte-exact through 2%% loss each way in %v (%.1f MiB/s); %s",
		size>>20, elapsed.Round(time.Millisecond), float64(size)/(1<<20)/elapsed.Seconds(), proxyFigures(proxy))
	if proxy.Dropped(udpproxy.ToServer) == 0 || proxy.Dropped(udpproxy.ToClient) == 0 {
		t.Fatal("the proxy dropped nothing: the test did not exercise loss")
	}
}

// writeRandom writes size pseudo-random bytes from seed to w in 64 KiB
// chunks and returns the count and SHA-256 of what was written.
func writeRandom(t *testing.T, w io.Writer, size int64, seed uint64) (int64, [sha256.Size]byte) {
	t.Helper()
	rng := rand.NewChaCha8([32]byte{byte(seed)})
	h := sha256.New()
	chunk := make([]byte, 64<<10)
	var n int64
	for n < size {
		c := chunk[:min(int64(len(chunk)), size-n)]
		_, _ = rng.Read(c)
		h.Write(c)
		if _, err := w.Write(c); err != nil {
			t.Fatalf("write after %d bytes: %v", n, err)
		}
		n += int64(len(c))
	}
	return n, [sha256.Size]byte(h.Sum(nil))
}
