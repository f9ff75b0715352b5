package weida

import (
	"context"
	"sync"
	"time"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
)

// Surveyor asks every respondent it is connected to at once and collects
// the answers that arrive before a deadline (SEMANTICS.md §2.5). It
// connects, accumulating respondents on purpose; each survey opens one
// exchange per live respondent (not a round-robin pick).
type Surveyor struct {
	d *dialer
}

// Surveyor creates a surveyor that verifies respondents under trust.
func (rt *Runtime) Surveyor(trust Trust, opts ...EndpointOption) *Surveyor {
	return &Surveyor{d: newDialer(rt, trust, opts)}
}

// Connect dials a respondent's url and adds it to those every survey asks.
func (s *Surveyor) Connect(ctx context.Context, url string) error { return s.d.connect(ctx, url) }

// Disconnect stops asking url's respondent; it reports whether there was one.
func (s *Surveyor) Disconnect(url string) bool { return s.d.disconnect(url) }

// PeerCount is the number of respondents whose connection is live.
func (s *Surveyor) PeerCount() int { return s.d.peerCount() }

// Events returns a reader of this endpoint's slot transitions.
func (s *Surveyor) Events() *PeerEvents { return s.d.events.subscribe() }

// Close releases the endpoint's connections and stops its redials.
func (s *Surveyor) Close() error {
	s.d.close()
	return nil
}

// Survey is what one survey collected. Silence is counted, not raised.
type Survey struct {
	// Replies are the answers whose reply arrived before the deadline, each
	// read whole under the survey's ceiling, in the order they completed.
	Replies [][]byte
	// Asked counts the respondents the question was put to: sent whole, or
	// failed while being sent (a failure). One that could not be asked
	// before the deadline (stream budget, flow control) is not counted.
	Asked int
	// Failed counts asked respondents that answered with an error: a
	// refusal, a reply above the ceiling, a reset, or a lost connection.
	Failed int
	// Late counts replies whose header arrived after the deadline while the
	// survey was still reading in-time answers; they are not delivered and
	// are among the silent.
	Late int
}

// Silent is the number of asked respondents that answered neither way in
// time: Asked − len(Replies) − Failed.
func (s Survey) Silent() int { return s.Asked - len(s.Replies) - s.Failed }

// Survey sends payload to every live respondent, concurrently, and collects
// their replies (each read under maxReplyBytes) until the deadline, which
// is mandatory, local only (never on the wire) and bounds both asking
// (stream budgets, flow control) and collecting. It returns as soon as every
// respondent answered, or once the deadline passed and every reply that
// arrived in time was read: an in-time reply is delivered even if its body
// is still arriving after the deadline (ctx bounds that read). A refusal or a dying respondent is
// one failure among the answers and ends nothing. With no live respondent
// the result is empty, not an error. Returning ends every exchange still
// open (its reply half is stopped with CANCELED), freeing its stream. When
// ctx ends first the survey is abandoned the same way and the result is
// Canceled.
func (s *Surveyor) Survey(ctx context.Context, payload []byte, deadline time.Duration, maxReplyBytes int64) (*Survey, error) {
	if deadline <= 0 {
		return nil, errs.New(errs.KindRuntime, "survey: the deadline must be positive, got %v", deadline)
	}
	if maxReplyBytes < 0 {
		return nil, errs.New(errs.KindRuntime, "survey: maxReplyBytes must not be negative, got %d", maxReplyBytes)
	}
	s.d.mu.Lock()
	closed := s.d.closed
	s.d.mu.Unlock()
	if closed {
		return nil, errEndpointClosed()
	}
	respondents := s.d.liveConns()
	if len(respondents) == 0 {
		return &Survey{}, nil
	}

	// The deadline instant is fixed before anything is asked, so an answer
	// is late exactly when it arrives after it.
	deadlineAt := time.Now().Add(deadline)
	runCtx, endRun := context.WithCancel(ctx)
	askCtx, endAsking := context.WithDeadline(runCtx, deadlineAt)
	defer endAsking()
	run := &surveyRun{payload: payload, maxReply: maxReplyBytes, deadlineAt: deadlineAt,
		askCtx: askCtx, runCtx: runCtx, busy: len(respondents), changed: make(chan struct{}, 1)}
	var wg sync.WaitGroup
	for _, c := range respondents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run.ask(c)
		}()
	}
	run.await(ctx, len(respondents))
	endRun()
	wg.Wait()
	if ctx.Err() != nil {
		return nil, errs.Wrap(errs.KindCanceled, ctx.Err(), "survey abandoned")
	}
	result := run.result
	return &result, nil
}

// surveyRun is one survey in progress: a goroutine per respondent reports
// into it, and the caller waits on it.
type surveyRun struct {
	payload    []byte
	maxReply   int64
	deadlineAt time.Time
	askCtx     context.Context // ends at the deadline: bounds asking
	runCtx     context.Context // ends when the survey returns: cancels what is still open

	mu       sync.Mutex
	busy     int // respondents being asked, or whose in-time reply is being read
	finished int // respondents whose exchange reached a final state
	result   Survey
	changed  chan struct{} // a token whenever busy or finished changed
}

// await returns when every respondent finished, or when the deadline passed
// and nothing in time is still being asked or read, or when ctx ended.
func (r *surveyRun) await(ctx context.Context, respondents int) {
	expiry := r.askCtx.Done()
	for {
		r.mu.Lock()
		done := r.finished == respondents || (r.pastDeadline() && r.busy == 0)
		r.mu.Unlock()
		if done || ctx.Err() != nil {
			return
		}
		select {
		case <-r.changed:
		case <-expiry:
			expiry = nil
		case <-ctx.Done():
		}
	}
}

// ask runs one respondent's exchange to its outcome.
func (r *surveyRun) ask(c *transport.Conn) {
	defer r.update(func() { r.finished++ })
	reply, asked := r.request(c)
	if asked {
		r.collect(reply)
	}
}

// request opens the exchange and writes the whole request before the
// deadline; the deadline cuts a write stalled by flow control short.
func (r *surveyRun) request(c *transport.Conn) (*ReplyStream, bool) {
	out, reply, err := openExchange(r.askCtx, c, TransferMeta{}.whole(len(r.payload)))
	if err == nil {
		// The deadline cuts the FIN short too, which a unix peer that does
		// not read holds up, but never resets a request that got out whole.
		cut := context.AfterFunc(r.askCtx, out.cancelUnfinished)
		_, err = out.Write(r.payload)
		if err == nil {
			_, err = out.Finish()
		}
		if !cut() && err != nil {
			err = errs.Wrap(errs.KindExpired, err, "the survey deadline passed while asking")
		}
		if err != nil {
			out.Cancel()
			_ = reply.Close()
		}
	}
	asked := true
	r.update(func() {
		r.busy--
		switch {
		case err == nil:
			r.result.Asked++
		case r.pastDeadline():
			asked = false // could not be asked in time: not counted
		default:
			r.result.Asked++
			r.result.Failed++
		}
	})
	return reply, asked && err == nil
}

// collect waits for the reply header. One that arrives before the deadline
// is read whole, however long its body takes (the survey waits for it);
// one that arrives after is counted late and its half stopped.
func (r *surveyRun) collect(reply *ReplyStream) {
	in, err := reply.Recv(r.runCtx)
	inTime := false
	r.update(func() {
		inTime = !r.pastDeadline()
		switch {
		case inTime && err == nil:
			r.busy++
		case inTime:
			r.result.Failed++
		case err == nil || surveyAnswered(err):
			r.result.Late++
		}
	})
	if err != nil {
		return
	}
	if !inTime {
		_ = reply.Close()
		return
	}
	cut := context.AfterFunc(r.runCtx, func() { _ = reply.Close() })
	body, err := in.Collect(r.maxReply)
	cut()
	r.update(func() {
		r.busy--
		if err != nil {
			r.result.Failed++
		} else {
			r.result.Replies = append(r.result.Replies, body)
		}
	})
}

// pastDeadline reports whether the deadline passed (by the clock, which
// the context's timer may trail) or the run was abandoned. It only ever
// turns true, so every decision taken under the lock after the caller saw
// it true sees it true too.
func (r *surveyRun) pastDeadline() bool {
	return r.askCtx.Err() != nil || !time.Now().Before(r.deadlineAt)
}

// update changes the run's state under its lock and wakes the caller.
func (r *surveyRun) update(change func()) {
	r.mu.Lock()
	change()
	r.mu.Unlock()
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

// surveyAnswered reports whether a reply-half error is the respondent's
// answer (an ERROR frame or a reset) rather than a loss or our own cancel.
func surveyAnswered(err error) bool {
	switch errs.KindOf(err) {
	case errs.KindIndeterminate, errs.KindCanceled, errs.KindProtocol:
		return false
	}
	return true
}

// Respondent answers surveys: a Replier under another name (SEMANTICS.md
// §2.5), with the same route, queue and backpressure. A surveyor that
// stopped waiting cancels the reply half, as a requester that walked away
// does (IncomingExchange.Canceled).
type Respondent struct {
	r *Replier
}

// Respondent registers a respondent at path.
func (l *Listener) Respondent(path string) (*Respondent, error) {
	r, err := l.Replier(path)
	if err != nil {
		return nil, err
	}
	return &Respondent{r: r}, nil
}

// Respondent registers a respondent at path on the binding's listener.
func (b *Binding) Respondent(path string) (*Respondent, error) { return b.rt.listener.Respondent(path) }

// Path is the registered path.
func (rs *Respondent) Path() string { return rs.r.Path() }

// Accept waits for the next survey question and reads it whole under the
// ceiling maxBytes; see Replier.Accept.
func (rs *Respondent) Accept(ctx context.Context, maxBytes int64) (*Request, error) {
	return rs.r.Accept(ctx, maxBytes)
}

// AcceptStream waits for the next survey question without reading it.
func (rs *Respondent) AcceptStream(ctx context.Context) (*IncomingExchange, error) {
	return rs.r.AcceptStream(ctx)
}

// Close unregisters the path; queued questions are refused UNKNOWN_ENDPOINT
// and blocked Accept calls return Canceled.
func (rs *Respondent) Close() error { return rs.r.Close() }
