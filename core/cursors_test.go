package weida_test

import (
	"context"
	"errors"
	"io"
	"maps"
	"runtime"
	"slices"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// cursorsPushPull is a pusher connected to a puller at /jobs.
func cursorsPushPull(t *testing.T) (*weida.Pusher, *weida.Puller) {
	t.Helper()
	srv := pushpullServe(t, weida.Config{})
	return pushpullPusher(t, pushpullRuntime(t, weida.Config{}), nil, srv.url), srv.pull
}

// cursorsFinal follows c until its report ends and returns the final
// snapshot.
func cursorsFinal(t *testing.T, c *weida.Cursors) map[uint64]uint64 {
	t.Helper()
	for {
		_, more, err := c.Changed(ctxFor(t))
		if err != nil {
			t.Fatalf("changed: %v", err)
		}
		if !more {
			return c.Snapshot()
		}
	}
}

// reportOf orders levels in Progress mode.
func reportOf(levels ...uint64) weida.ReportOrder { return weida.ReportOrder{Levels: levels} }

func TestCursorsPushGetsProcessedWithoutAnExchange(t *testing.T) {
	push, pull := cursorsPushPull(t)
	payload := []byte("settle me")
	cursors, err := push.SendReporting(ctxFor(t), payload, reportOf(weida.Processed))
	if err != nil || cursors == nil {
		t.Fatalf("send reporting: %v, %v", cursors, err)
	}
	body, meta, rep, err := pull.RecvReporting(ctxFor(t), 64)
	if err != nil || string(body) != string(payload) || rep == nil {
		t.Fatalf("recv reporting: %q, %v, %v", body, rep, err)
	}
	if o, ok := meta.Report(); !ok || !slices.Equal(o.Levels, []uint64{weida.Processed}) || o.Mode != weida.Progress {
		t.Fatalf("meta report %+v, %v", o, ok)
	}
	if id, ok := meta.ReportID(); !ok || id == 0 {
		t.Fatalf("meta report id %d, %v; want a non-zero id", id, ok)
	}
	if !slices.Equal(rep.Levels(), []uint64{weida.Processed}) || rep.Mode() != weida.Progress {
		t.Fatalf("reporter levels %v mode %v", rep.Levels(), rep.Mode())
	}
	if err := rep.Report(weida.Processed, uint64(len(body))); err != nil {
		t.Fatal(err)
	}
	if err := rep.Finish(); err != nil {
		t.Fatal(err)
	}
	want := map[uint64]uint64{weida.Processed: uint64(len(payload))}
	snap, more, err := cursors.Changed(ctxFor(t))
	if err != nil || !more || !maps.Equal(snap, want) {
		t.Fatalf("changed: %v, more %v, %v; want %v", snap, more, err, want)
	}
	if _, more, err := cursors.Changed(ctxFor(t)); more || err != nil {
		t.Fatalf("after the reporter finished: more %v, %v; want the end of the report", more, err)
	}
	if off, ok := cursors.Offset(weida.Processed); !ok || off != uint64(len(payload)) {
		t.Fatalf("offset %d, %v", off, ok)
	}
}

func TestCursorsApplicationLevelIsCarriedWithAnyOffset(t *testing.T) {
	push, pull := cursorsPushPull(t)
	stage := weida.ApplicationFloor + 3
	// The offset of an application level means whatever the application
	// says: weida neither interprets nor bounds it by the payload.
	for _, offset := range []uint64{0, 3, 1 << 40, 1<<62 - 1} {
		cursors, err := push.SendReporting(ctxFor(t), []byte("abc"), reportOf(stage))
		if err != nil {
			t.Fatal(err)
		}
		_, _, rep, err := pull.RecvReporting(ctxFor(t), 64)
		if err != nil || rep == nil {
			t.Fatalf("recv: %v, %v", rep, err)
		}
		if err := rep.Report(stage, offset); err != nil {
			t.Fatal(err)
		}
		if err := rep.Finish(); err != nil {
			t.Fatal(err)
		}
		if got := cursorsFinal(t, cursors); !maps.Equal(got, map[uint64]uint64{stage: offset}) {
			t.Fatalf("offset %d: final snapshot %v", offset, got)
		}
	}
}

func TestCursorsBadOrderIsRefusedBeforeAnythingIsSent(t *testing.T) {
	seventeen := []uint64{0, 1, 2, 3, 4, 5, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26}
	bad := []struct {
		name  string
		order weida.ReportOrder
	}{
		{"reserved level 7", reportOf(weida.Processed, 7)},
		{"mode 9", weida.ReportOrder{Levels: []uint64{weida.Processed}, Mode: 9}},
		{"seventeen levels", weida.ReportOrder{Levels: seventeen}},
		{"level without a varint encoding", reportOf(1 << 62)},
	}
	push, pull := cursorsPushPull(t)
	unconnected := pushpullRuntime(t, weida.Config{}).Pusher(weida.TrustByAddress())
	t.Cleanup(func() { _ = unconnected.Close() })
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := push.SendReporting(ctxFor(t), []byte("x"), tt.order)
			reqrepWantKind(t, "SendReporting", err, weida.KindProtocol)
			_, err = push.Open(ctxFor(t), weida.TransferMeta{Report: tt.order})
			reqrepWantKind(t, "Open", err, weida.KindProtocol)
			// The order is checked before a connection is even looked for.
			_, err = unconnected.SendReporting(ctxFor(t), []byte("x"), tt.order)
			reqrepWantKind(t, "SendReporting without a connection", err, weida.KindProtocol)
			_, err = unconnected.Open(ctxFor(t), weida.TransferMeta{Report: tt.order})
			reqrepWantKind(t, "Open without a connection", err, weida.KindProtocol)
		})
	}
	// Nothing left before the refusals: the next message is the first the
	// puller sees.
	if err := push.Send(ctxFor(t), []byte("after")); err != nil {
		t.Fatal(err)
	}
	if got, _, err := pull.Recv(ctxFor(t), 64); err != nil || string(got) != "after" {
		t.Fatalf("first message %q, %v; want \"after\"", got, err)
	}
}

func TestCursorsCallsWithoutCursorsRefuseAnOrder(t *testing.T) {
	push, _ := cursorsPushPull(t)
	meta := weida.TransferMeta{Report: reportOf(weida.Processed)}
	reqrepWantKind(t, "Pusher.SendWith", push.SendWith(ctxFor(t), meta, []byte("x")), weida.KindRuntime)
	_, b, _ := reqrepServe(t, "/rep")
	_, _, err := reqrepRequester(t, b.URL("/rep")).RequestWith(ctxFor(t), meta, []byte("x"), 64)
	reqrepWantKind(t, "Requester.RequestWith", err, weida.KindRuntime)
	srv := pairServe(t)
	reqrepWantKind(t, "Paired.SendWith", pairDial(t, srv.url).SendWith(ctxFor(t), meta, []byte("x")), weida.KindRuntime)
}

func TestCursorsNoOrderHandsOutNoHandles(t *testing.T) {
	push, pull := cursorsPushPull(t)
	for _, o := range []weida.ReportOrder{{}, {Mode: weida.FinalOnly}} {
		cursors, err := push.SendReporting(ctxFor(t), []byte("plain"), o)
		if err != nil || cursors != nil {
			t.Fatalf("order %+v: cursors %v, %v; want none", o, cursors, err)
		}
		_, meta, rep, err := pull.RecvReporting(ctxFor(t), 64)
		if err != nil || rep != nil {
			t.Fatalf("order %+v: reporter %v, %v; want none", o, rep, err)
		}
		if _, ok := meta.Report(); ok {
			t.Fatal("meta shows a report nobody ordered")
		}
		if _, ok := meta.ReportID(); ok {
			t.Fatal("meta shows a report id nobody allocated")
		}
	}
	out, err := push.Open(ctxFor(t), weida.TransferMeta{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Cursors() != nil {
		t.Fatal("a streamed transfer that ordered nothing has Cursors")
	}
	out.Cancel()

	ordered, err := push.Open(ctxFor(t), weida.TransferMeta{Report: reportOf(weida.Processed)})
	if err != nil {
		t.Fatal(err)
	}
	defer ordered.Cancel()
	if first, second := ordered.Cursors(), ordered.Cursors(); first == nil || second != nil {
		t.Fatalf("Cursors %v then %v; want them once, then nil", first, second)
	}
}

func TestCursorsStreamed8KiBTransferReportsItsFullLength(t *testing.T) {
	const size, chunk = 8 << 10, 1 << 10
	push, pull := cursorsPushPull(t)
	out, err := push.Open(ctxFor(t), weida.TransferMeta{Report: reportOf(weida.Processed)})
	if err != nil {
		t.Fatal(err)
	}
	cursors := out.Cursors()
	payload := reqrepPattern(size)
	for at := 0; at < size; at += chunk {
		if _, err := out.Write(payload[at : at+chunk]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := out.Finish(); err != nil {
		t.Fatal(err)
	}
	in, err := pull.RecvStream(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	rep := in.Reporter()
	if rep == nil || in.Reporter() != rep {
		t.Fatalf("reporter %p, again %p; want the same one", rep, in.Reporter())
	}
	buf, processed := make([]byte, chunk), uint64(0)
	for {
		n, err := in.Read(buf)
		processed += uint64(n)
		if n > 0 {
			if rerr := rep.Report(weida.Processed, processed); rerr != nil {
				t.Fatal(rerr)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := rep.Finish(); err != nil {
		t.Fatal(err)
	}
	if got := cursorsFinal(t, cursors); !maps.Equal(got, map[uint64]uint64{weida.Processed: size}) {
		t.Fatalf("final snapshot %v, want Processed at %d", got, size)
	}
}

func TestCursorsFinalOnlyWritesNothingUntilFinish(t *testing.T) {
	push, pull := cursorsPushPull(t)
	cursors, err := push.SendReporting(ctxFor(t), []byte("final"), weida.ReportOrder{Levels: []uint64{weida.Processed}, Mode: weida.FinalOnly})
	if err != nil {
		t.Fatal(err)
	}
	_, _, rep, err := pull.RecvReporting(ctxFor(t), 64)
	if err != nil || rep.Mode() != weida.FinalOnly {
		t.Fatalf("reporter %v, %v", rep, err)
	}
	for _, offset := range []uint64{1, 3, 5} {
		if err := rep.Report(weida.Processed, offset); err != nil {
			t.Fatal(err)
		}
	}
	// A negative assertion needs a bounded wait: nothing can signal that a
	// record will never come. 300 ms is three progress intervals, so a
	// reporter that wrongly treated FinalOnly as Progress would have written.
	quiet, cancel := context.WithTimeout(ctxFor(t), 300*time.Millisecond)
	defer cancel()
	if snap, more, err := cursors.Changed(quiet); !errors.Is(err, weida.ErrCanceled) {
		t.Fatalf("before Finish: %v, more %v, %v; want no change", snap, more, err)
	}
	if err := rep.Finish(); err != nil {
		t.Fatal(err)
	}
	if got := cursorsFinal(t, cursors); !maps.Equal(got, map[uint64]uint64{weida.Processed: 5}) {
		t.Fatalf("final snapshot %v, want Processed at 5", got)
	}
}

func TestCursorsLevelNobodyReportsIsAbsent(t *testing.T) {
	push, pull := cursorsPushPull(t)
	cursors, err := push.SendReporting(ctxFor(t), []byte("half"), reportOf(weida.Stored, weida.Processed, weida.ApplicationFloor))
	if err != nil {
		t.Fatal(err)
	}
	_, _, rep, err := pull.RecvReporting(ctxFor(t), 64)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Report(weida.Processed, 4); err != nil {
		t.Fatal(err)
	}
	if err := rep.Report(weida.Accepted, 4); err != nil { // not ordered: ignored, not refused
		t.Fatal(err)
	}
	if err := rep.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := rep.Finish(); !errors.Is(err, weida.ErrNoReply) {
		t.Fatalf("second finish: %v, want NoReply", err)
	}
	if got := cursorsFinal(t, cursors); !maps.Equal(got, map[uint64]uint64{weida.Processed: 4}) {
		t.Fatalf("final snapshot %v, want only Processed", got)
	}
	if _, ok := cursors.Offset(weida.Stored); ok {
		t.Fatal("Stored has an offset nobody reported")
	}
}

// cursorsExchange opens an exchange ordering a Processed report on its
// request, writes request whole, and returns the reply and the request's
// Cursors.
func cursorsExchange(t *testing.T, requester *weida.Requester, request []byte) (*weida.IncomingTransfer, *weida.Cursors) {
	t.Helper()
	out, half, err := requester.Open(ctxFor(t), weida.TransferMeta{Report: reportOf(weida.Processed)})
	if err != nil {
		t.Fatal(err)
	}
	cursors := out.Cursors()
	if _, err := out.Write(request); err != nil {
		t.Fatal(err)
	}
	if _, err := out.Finish(); err != nil {
		t.Fatal(err)
	}
	in, err := half.Recv(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	return in, cursors
}

func TestCursorsReplierReportsOnTheRequest(t *testing.T) {
	_, b, rep := reqrepServe(t, "/rep")
	requester := reqrepRequester(t, b.URL("/rep"))
	served := reqrepAnswer(t, rep, func(ctx context.Context, rep *weida.Replier) error {
		req, err := rep.Accept(ctx, 64)
		if err != nil {
			return err
		}
		r := req.Reporter()
		if err := r.Report(weida.Processed, uint64(len(req.Payload()))); err != nil {
			return err
		}
		if err := r.Finish(); err != nil {
			return err
		}
		return req.Reply(ctx, []byte("done"))
	})
	in, cursors := cursorsExchange(t, requester, []byte("work"))
	if got, err := in.Collect(64); err != nil || string(got) != "done" {
		t.Fatalf("reply %q, %v", got, err)
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if snap := cursorsFinal(t, cursors); !maps.Equal(snap, map[uint64]uint64{weida.Processed: 4}) {
		t.Fatalf("request report %v", snap)
	}
}

func TestCursorsReplyHalfStillCarriesExactlyOneFrame(t *testing.T) {
	_, b, rep := reqrepServe(t, "/rep")
	requester := reqrepRequester(t, b.URL("/rep"))
	request, reply := reqrepPattern(3000), reqrepPattern(5000)
	replyCursors := make(chan *weida.Cursors, 1)
	served := reqrepAnswer(t, rep, func(ctx context.Context, rep *weida.Replier) error {
		ex, err := rep.AcceptStream(ctx)
		if err != nil {
			return err
		}
		body, err := ex.Request().Collect(1 << 20)
		if err != nil {
			return err
		}
		r := ex.Request().Reporter()
		if err := r.Report(weida.Processed, uint64(len(body))); err != nil {
			return err
		}
		if err := r.Finish(); err != nil {
			return err
		}
		// The reply orders a report of its own (PROTOCOL.md §8.3.5); its
		// half still carries one DATA frame and the payload, nothing else.
		out, err := ex.Reply(weida.TransferMeta{Report: reportOf(weida.ApplicationFloor)})
		if err != nil {
			return err
		}
		replyCursors <- out.Cursors()
		if _, err := out.Write(reply); err != nil {
			return err
		}
		_, err = out.Finish()
		return err
	})
	in, requestCursors := cursorsExchange(t, requester, request)
	got, err := in.Collect(1 << 20)
	if err != nil || !slices.Equal(got, reply) {
		t.Fatalf("reply of %d bytes, %v; want exactly the %d bytes written", len(got), err, len(reply))
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if snap := cursorsFinal(t, requestCursors); !maps.Equal(snap, map[uint64]uint64{weida.Processed: uint64(len(request))}) {
		t.Fatalf("request report %v", snap)
	}
	// The requester reports on the reply, toward the replier.
	replyRep := in.Reporter()
	if replyRep == nil {
		t.Fatal("the reply ordered a report but hands out no Reporter")
	}
	if err := replyRep.Report(weida.ApplicationFloor, uint64(len(got))); err != nil {
		t.Fatal(err)
	}
	if err := replyRep.Finish(); err != nil {
		t.Fatal(err)
	}
	if snap := cursorsFinal(t, <-replyCursors); !maps.Equal(snap, map[uint64]uint64{weida.ApplicationFloor: uint64(len(reply))}) {
		t.Fatalf("reply report %v", snap)
	}
}

func TestCursorsPairReportsBothWays(t *testing.T) {
	srv := pairServe(t)
	dialling := pairDial(t, srv.url)
	ends := []struct {
		name     string
		from, to *weida.Paired
	}{
		// The dialling end speaks first: that gives the bound end its peer.
		{"dialling to bound", dialling, srv.pair},
		{"bound to dialling", srv.pair, dialling},
	}
	for _, e := range ends {
		t.Run(e.name, func(t *testing.T) {
			cursors, err := e.from.SendReporting(ctxFor(t), []byte("pair"), reportOf(weida.Processed))
			if err != nil {
				t.Fatal(err)
			}
			_, _, rep, err := e.to.RecvReporting(ctxFor(t), 64)
			if err != nil || rep == nil {
				t.Fatalf("recv: %v, %v", rep, err)
			}
			if err := rep.Report(weida.Processed, 4); err != nil {
				t.Fatal(err)
			}
			if err := rep.Finish(); err != nil {
				t.Fatal(err)
			}
			if snap := cursorsFinal(t, cursors); !maps.Equal(snap, map[uint64]uint64{weida.Processed: 4}) {
				t.Fatalf("final snapshot %v", snap)
			}
		})
	}
}

func TestCursorsCloseStopsWatching(t *testing.T) {
	push, pull := cursorsPushPull(t)
	cursors, err := push.SendReporting(ctxFor(t), []byte("x"), reportOf(weida.Processed))
	if err != nil {
		t.Fatal(err)
	}
	if err := cursors.Close(); err != nil {
		t.Fatal(err)
	}
	if _, more, err := cursors.Changed(ctxFor(t)); more || err != nil {
		t.Fatalf("after Close: more %v, %v; want the end of the report", more, err)
	}
	// The receiver's report now names a released id: it is stopped, and
	// neither side fails for it.
	_, _, rep, err := pull.RecvReporting(ctxFor(t), 64)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Report(weida.Processed, 1); err != nil {
		t.Fatal(err)
	}
	if err := rep.Finish(); err != nil {
		t.Fatal(err)
	}
	if len(cursors.Snapshot()) != 0 {
		t.Fatalf("a closed report changed: %v", cursors.Snapshot())
	}
	if err := push.Send(ctxFor(t), []byte("still fine")); err != nil {
		t.Fatal(err)
	}
	if got, _, err := pull.Recv(ctxFor(t), 64); err != nil || string(got) != "still fine" {
		t.Fatalf("after a stopped report: %q, %v", got, err)
	}
}

func TestCursorsGoroutinesReturnToBaseline(t *testing.T) {
	baseline := runtime.NumGoroutine()
	srv := pushpullServe(t, weida.Config{})
	client := pushpullRuntime(t, weida.Config{})
	push := client.Pusher(weida.TrustByAddress())
	if err := push.Connect(ctxFor(t), srv.url); err != nil {
		t.Fatal(err)
	}
	for _, o := range []weida.ReportOrder{reportOf(weida.Processed), {Levels: []uint64{weida.Stored}, Mode: weida.FinalOnly}} {
		cursors, err := push.SendReporting(ctxFor(t), []byte("g"), o)
		if err != nil {
			t.Fatal(err)
		}
		_, _, rep, err := srv.pull.RecvReporting(ctxFor(t), 64)
		if err != nil {
			t.Fatal(err)
		}
		if err := rep.Report(o.Levels[0], 1); err != nil {
			t.Fatal(err)
		}
		if err := rep.Finish(); err != nil {
			t.Fatal(err)
		}
		cursorsFinal(t, cursors)
	}
	// A report left unfinished and one never watched end with the runtime.
	if _, err := push.SendReporting(ctxFor(t), []byte("h"), reportOf(weida.Processed)); err != nil {
		t.Fatal(err)
	}
	_, _, rep, err := srv.pull.RecvReporting(ctxFor(t), 64)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Report(weida.Processed, 1); err != nil {
		t.Fatal(err)
	}
	_ = push.Close()
	_ = srv.pull.Close()
	client.Shutdown()
	srv.rt.Shutdown()
	reqrepSettleGoroutines(t, baseline)
}

// A receiver reporting one of weida's levels beyond the payload measured
// nothing: the record is dropped and counted (Cursors.Ignored), and the
// report goes on around it. Before, any offset up to 2^62 was taken.
func TestCursorsIgnoreAnOffsetBeyondThePayload(t *testing.T) {
	push, pull := cursorsPushPull(t)
	stage := weida.ApplicationFloor + 1
	cursors, err := push.SendReporting(ctxFor(t), []byte("abc"), reportOf(weida.Processed, stage))
	if err != nil {
		t.Fatal(err)
	}
	_, _, rep, err := pull.RecvReporting(ctxFor(t), 64)
	if err != nil || rep == nil {
		t.Fatalf("recv: %v, %v", rep, err)
	}
	if err := rep.Report(weida.Processed, 1000); err != nil {
		t.Fatal(err)
	}
	if err := rep.Report(stage, 7); err != nil {
		t.Fatal(err)
	}
	if err := rep.Finish(); err != nil {
		t.Fatal(err)
	}
	if got := cursorsFinal(t, cursors); !maps.Equal(got, map[uint64]uint64{stage: 7}) {
		t.Fatalf("final snapshot %v: the beyond-the-payload Processed must be dropped, the stage kept", got)
	}
	if n := cursors.Ignored(); n != 1 {
		t.Fatalf("Ignored() = %d, want 1", n)
	}
}
