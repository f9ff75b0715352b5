package broker

import (
	"sync"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/cursor"
)

// MaxProducerReports bounds the reports one producer connection may have
// going from the broker at once, across its queues: past it a new order is
// abandoned (Stats.ReportsAbandoned) and the message is admitted all the
// same. It equals what the producer's own connection can await
// (cursor.MaxAwaiting), so a producer within its own bound never meets
// it; one that orders reports and never reads them does, instead of
// parking a goroutine per message.
const MaxProducerReports = cursor.MaxAwaiting

// producerReports counts, per producer connection, the reports under way
// toward it. It is the broker's, shared by its queues.
type producerReports struct {
	limit int
	mu    sync.Mutex
	live  map[weida.PortConn]int
}

func newProducerReports(limit int) *producerReports {
	return &producerReports{limit: limit, live: make(map[weida.PortConn]int)}
}

// start is the report the producer of t ordered, or nil when it ordered
// none or its connection is at the bound (counted as abandoned). A report
// whose stream could not be opened in time is counted as abandoned when it
// ends.
func (pr *producerReports) start(q *queue, t *weida.IncomingTransfer) *producerReport {
	r := q.port.ProducerReporter(t)
	if r == nil {
		return nil
	}
	conn := q.port.ProducerConn(t)
	pr.mu.Lock()
	if pr.live[conn] >= pr.limit {
		pr.mu.Unlock()
		q.reportsAbandoned.Add(1)
		q.log.reportAbandoned("the producer connection has too many reports under way")
		return nil // a reporter that reports nothing opens nothing
	}
	pr.live[conn]++
	pr.mu.Unlock()
	r.AfterDone(func() {
		pr.mu.Lock()
		if pr.live[conn]--; pr.live[conn] == 0 {
			delete(pr.live, conn)
		}
		pr.mu.Unlock()
		if r.Abandoned() {
			q.reportsAbandoned.Add(1)
			q.log.reportAbandoned("the producer gave no stream credit within the report deadline")
		}
	})
	p := newProducerReport(r)
	p.conn = conn
	return p
}

// count is the reports under way toward conn (tests).
func (pr *producerReports) count(conn weida.PortConn) int {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.live[conn]
}
