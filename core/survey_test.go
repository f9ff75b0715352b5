package weida_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// surveyRespondent is one respondent in its own runtime.
type surveyRespondent struct {
	rt  *weida.Runtime
	r   *weida.Respondent
	url string
}

func surveyServe(t *testing.T) *surveyRespondent {
	t.Helper()
	return surveyServeWith(t, weida.Config{})
}

func surveyServeWith(t *testing.T, cfg weida.Config) *surveyRespondent {
	t.Helper()
	rt := runtimeWith(t, cfg)
	b := bindLoopback(t, rt)
	r, err := b.Respondent("/survey")
	if err != nil {
		t.Fatal(err)
	}
	return &surveyRespondent{rt: rt, r: r, url: b.URL("/survey")}
}

// answer accepts one question and hands it to act.
func (s *surveyRespondent) answer(t *testing.T, act func(*weida.Request)) {
	go func() {
		req, err := s.r.Accept(ctxFor(t), 1<<20) // above every question asked here
		if err == nil {
			act(req)
		}
	}()
}

// echoUpper answers with the question in upper case.
func echoUpper(t *testing.T) func(*weida.Request) {
	return func(req *weida.Request) { _ = req.Reply(ctxFor(t), bytes.ToUpper(req.Payload())) }
}

// surveyor connects a surveyor in a fresh runtime to every respondent.
func surveyor(t *testing.T, respondents ...*surveyRespondent) *weida.Surveyor {
	t.Helper()
	s := testRuntime(t).Surveyor(weida.TrustByAddress())
	for _, r := range respondents {
		if err := s.Connect(ctxFor(t), r.url); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func surveyCounts(t *testing.T, got *weida.Survey, asked, replies, failed, late int) {
	t.Helper()
	if got.Asked != asked || len(got.Replies) != replies || got.Failed != failed || got.Late != late {
		t.Fatalf("survey asked %d, replies %d, failed %d, late %d; want %d, %d, %d, %d",
			got.Asked, len(got.Replies), got.Failed, got.Late, asked, replies, failed, late)
	}
}

func TestSurveyEndsEarlyWhenAllAnswered(t *testing.T) {
	var respondents []*surveyRespondent
	for range 3 {
		r := surveyServe(t)
		r.answer(t, echoUpper(t))
		respondents = append(respondents, r)
	}
	s := surveyor(t, respondents...)
	if n := s.PeerCount(); n != 3 {
		t.Fatalf("peer count %d, want 3", n)
	}
	// The deadline is far beyond the test's context: only ending when every
	// respondent answered lets Survey return without Canceled.
	got, err := s.Survey(ctxFor(t), []byte("status?"), time.Hour, 64)
	if err != nil {
		t.Fatalf("survey did not end when every respondent had answered: %v", err)
	}
	surveyCounts(t, got, 3, 3, 0, 0)
	for _, reply := range got.Replies {
		if string(reply) != "STATUS?" {
			t.Fatalf("reply %q", reply)
		}
	}
	if got.Silent() != 0 {
		t.Fatalf("silent %d, want 0", got.Silent())
	}
}

func TestSurveyCountsSilenceAndCancelsTheSilent(t *testing.T) {
	answering := []*surveyRespondent{surveyServe(t), surveyServe(t)}
	for _, r := range answering {
		r.answer(t, echoUpper(t))
	}
	silent := surveyServe(t)
	held := make(chan *weida.Request, 1)
	silent.answer(t, func(req *weida.Request) { held <- req })
	s := surveyor(t, append(answering, silent)...)

	got, err := s.Survey(ctxFor(t), []byte("q"), 300*time.Millisecond, 64)
	if err != nil {
		t.Fatal(err)
	}
	surveyCounts(t, got, 3, 2, 0, 0)
	if got.Silent() != 1 {
		t.Fatalf("silent %d, want 1 (asked 3, answered 2)", got.Silent())
	}
	// Ending the survey stopped the silent respondent's reply half.
	req := <-held
	select {
	case <-req.Canceled():
	case <-ctxFor(t).Done():
		t.Fatal("the silent respondent's exchange was not cancelled when the survey ended")
	}
	if err := req.Reply(ctxFor(t), []byte("too late")); !errors.Is(err, weida.ErrCanceled) {
		t.Fatalf("reply after the survey ended: %v, want Canceled", err)
	}
}

func TestSurveyAbandonedByCtxCancelsItsExchanges(t *testing.T) {
	silent := surveyServe(t)
	held := make(chan *weida.Request, 1)
	silent.answer(t, func(req *weida.Request) { held <- req })
	s := surveyor(t, silent)

	ctx, cancel := context.WithCancel(ctxFor(t))
	defer cancel()
	asked := make(chan *weida.Request, 1)
	go func() {
		req := <-held // the question arrived: now walk away
		cancel()
		asked <- req
	}()
	if _, err := s.Survey(ctx, []byte("q"), time.Hour, 64); !errors.Is(err, weida.ErrCanceled) {
		t.Fatalf("abandoned survey: %v, want Canceled", err)
	}
	req := <-asked
	select {
	case <-req.Canceled():
	case <-ctxFor(t).Done():
		t.Fatal("the respondent's exchange was not cancelled when the survey was abandoned")
	}
}

func TestSurveyNonReadingRespondentCannotHoldItOpen(t *testing.T) {
	const deadline = 300 * time.Millisecond
	// The non-reading respondent grants small windows, so a modest
	// question can exceed them.
	small := weida.Config{Limits: weida.Limits{StreamReceiveWindow: 16 << 10, ConnectionReceiveWindow: 32 << 10}}
	for _, tc := range []struct {
		name    string
		payload int
		asked   int
	}{
		// The question fits the respondent's window: it is asked, then silent.
		{"small question", 16, 2},
		// The question exceeds the window of a path nobody reads: it cannot
		// be asked before the deadline, so it is not counted.
		{"question beyond the window", 64 << 10, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answering := surveyServe(t)
			answering.answer(t, echoUpper(t))
			nonReading := surveyServeWith(t, small) // registered, never accepts
			s := surveyor(t, answering, nonReading)

			start := time.Now()
			got, err := s.Survey(ctxFor(t), make([]byte, tc.payload), deadline, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			if elapsed := time.Since(start); elapsed < deadline {
				t.Fatalf("returned after %v, before the deadline with a respondent silent", elapsed)
			}
			surveyCounts(t, got, tc.asked, 1, 0, 0)
		})
	}
}

func TestSurveyFailureIsOneAmongReplies(t *testing.T) {
	for _, tc := range []struct {
		name string
		act  func(*surveyRespondent, *weida.Request)
	}{
		{"refusal", func(_ *surveyRespondent, req *weida.Request) { _ = req.Refuse() }},
		{"released unanswered", func(_ *surveyRespondent, req *weida.Request) { _ = req.Close() }},
		{"reply above the ceiling", func(_ *surveyRespondent, req *weida.Request) {
			_ = req.Reply(ctxFor(t), make([]byte, 4<<10))
		}},
		{"dying respondent", func(r *surveyRespondent, _ *weida.Request) { r.rt.Shutdown() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answering := []*surveyRespondent{surveyServe(t), surveyServe(t)}
			for _, r := range answering {
				r.answer(t, echoUpper(t))
			}
			failing := surveyServe(t)
			failing.answer(t, func(req *weida.Request) { tc.act(failing, req) })
			s := surveyor(t, append(answering, failing)...)

			// A long deadline: the failure must count as an answer, so the
			// survey ends as soon as all three answered either way.
			got, err := s.Survey(ctxFor(t), []byte("q"), time.Hour, 64)
			if err != nil {
				t.Fatalf("survey: %v", err)
			}
			surveyCounts(t, got, 3, 2, 1, 0)
			if got.Silent() != 0 {
				t.Fatalf("silent %d, want 0", got.Silent())
			}
		})
	}
}

func TestSurveyLateReplyIsCountedNotDeliveredAndAnInTimeOneSurvives(t *testing.T) {
	const deadline = 500 * time.Millisecond
	inTime, late := surveyServe(t), surveyServe(t)
	lateStopped := make(chan error, 1)

	// The in-time respondent sends its reply header at once and finishes
	// the body only after the late reply was stopped, so the survey reads
	// an in-time answer past its deadline.
	go func() {
		ex, err := inTime.r.AcceptStream(ctxFor(t))
		if err != nil {
			return
		}
		w, err := ex.Reply(weida.TransferMeta{})
		if err != nil {
			return
		}
		_, _ = w.Write([]byte("in time, "))
		if err := <-lateStopped; !errors.Is(err, weida.ErrCanceled) {
			t.Errorf("the late reply ended with %v, want Canceled (stopped by the surveyor)", err)
		}
		_, _ = w.Write([]byte("read after the deadline"))
		_, _ = w.Finish()
	}()
	// The late respondent answers only once the survey's deadline has
	// passed. Waiting for the clock is the behaviour under test here (the
	// survey's deadline was fixed before the question was accepted), not a
	// synchronisation; then it writes until the surveyor stops its reply.
	go func() {
		ex, err := late.r.AcceptStream(ctxFor(t))
		if err != nil {
			lateStopped <- err
			return
		}
		time.Sleep(deadline)
		w, err := ex.Reply(weida.TransferMeta{})
		chunk := make([]byte, 64<<10)
		for err == nil {
			_, err = w.Write(chunk)
		}
		lateStopped <- err
	}()
	s := surveyor(t, inTime, late)

	got, err := s.Survey(ctxFor(t), []byte("q"), deadline, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	surveyCounts(t, got, 2, 1, 0, 1)
	if string(got.Replies[0]) != "in time, read after the deadline" {
		t.Fatalf("reply %q", got.Replies[0])
	}
	if got.Silent() != 1 {
		t.Fatalf("silent %d, want 1: a late answer is not an answer", got.Silent())
	}
}

func TestSurveyWithoutRespondents(t *testing.T) {
	s := testRuntime(t).Surveyor(weida.TrustByAddress())
	got, err := s.Survey(ctxFor(t), []byte("anyone?"), time.Second, 64)
	if err != nil {
		t.Fatalf("survey without respondents: %v, want an empty result", err)
	}
	if got.Asked != 0 || len(got.Replies) != 0 || got.Silent() != 0 {
		t.Fatalf("survey without respondents: %+v, want empty", got)
	}
	for _, tc := range []struct {
		name     string
		deadline time.Duration
		max      int64
	}{
		{"zero deadline", 0, 64},
		{"negative deadline", -time.Second, 64},
		{"negative ceiling", time.Second, -1},
	} {
		if _, err := s.Survey(ctxFor(t), nil, tc.deadline, tc.max); weida.KindOf(err) != weida.KindRuntime {
			t.Fatalf("%s: %v, want a Runtime error", tc.name, err)
		}
	}
}

func TestSurveyGoroutinesEndAfterShutdown(t *testing.T) {
	check := busGoroutineBaseline(t)
	var runtimes []*weida.Runtime
	var urls []string
	for range 2 {
		rt, err := weida.NewRuntime(weida.Config{})
		if err != nil {
			t.Fatal(err)
		}
		runtimes = append(runtimes, rt)
		id, _ := weida.GenerateIdentity()
		b, err := rt.Listener().BindQUIC("127.0.0.1:0", id)
		if err != nil {
			t.Fatal(err)
		}
		r, err := b.Respondent("/survey")
		if err != nil {
			t.Fatal(err)
		}
		urls = append(urls, b.URL("/survey"))
		go func() {
			req, err := r.Accept(ctxFor(t), 64)
			if err == nil {
				_ = req.Reply(ctxFor(t), []byte("here"))
			}
		}()
	}
	client, err := weida.NewRuntime(weida.Config{})
	if err != nil {
		t.Fatal(err)
	}
	runtimes = append(runtimes, client)
	s := client.Surveyor(weida.TrustByAddress())
	for _, u := range urls {
		if err := s.Connect(ctxFor(t), u); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Survey(ctxFor(t), []byte("q"), time.Hour, 64)
	if err != nil {
		t.Fatal(err)
	}
	surveyCounts(t, got, 2, 2, 0, 0)
	// The surveyor's runtime goes first, so its slots end locally and are
	// not redialled.
	slices.Reverse(runtimes)
	for _, rt := range runtimes {
		rt.Shutdown()
	}
	check()
}
