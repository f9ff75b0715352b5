package broker

import (
	"context"
	"log/slog"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/internal/lograte"
)

// queueLog is one queue's side of Config.Logger. What it logs:
//
//   - Error: everything OnError hears (a store failure at admission, a
//     body quarantined or deferred for an unreadable read, a queue left
//     unserved at start), with the queue's path.
//   - Debug: an admission refused (full, retiring, the store) or
//     interrupted by its producer, and a report toward a producer
//     abandoned. Those can come once per message, so each queue lets at
//     most lograte.DefaultBurst of them through a second, and the next line
//     says how many it left out.
//
// A nil *queueLog (or a nil Logger) is silent.
type queueLog struct {
	log   *slog.Logger
	path  string
	gate  lograte.Gate
	quiet bool
}

// logErrors gives q its log and returns onError extended to log each
// error before it is passed on.
func (q *queue) logErrors(logger *slog.Logger, onError func(error)) func(error) {
	q.log = &queueLog{log: logger, path: q.path, quiet: logger == nil}
	if logger == nil {
		return onError
	}
	return func(err error) {
		q.log.emit(slog.LevelError, "weida broker: queue error", slog.String("error", err.Error()))
		onError(err)
	}
}

// emit writes one line with the queue's path when the level is enabled.
func (l *queueLog) emit(level slog.Level, msg string, attrs ...slog.Attr) {
	if l == nil || l.quiet || !l.log.Enabled(context.Background(), level) {
		return
	}
	l.log.LogAttrs(context.Background(), level, msg, append([]slog.Attr{slog.String("queue", l.path)}, attrs...)...)
}

// bounded is emit at Debug through the queue's rate gate.
func (l *queueLog) bounded(msg string, attrs ...slog.Attr) {
	if l == nil || l.quiet || !l.log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	ok, held := l.gate.Allow()
	if !ok {
		return
	}
	if held > 0 {
		attrs = append(attrs, slog.Uint64("suppressed", held))
	}
	l.emit(slog.LevelDebug, msg, attrs...)
}

// admissionFailed logs an admission that made no message.
func (l *queueLog) admissionFailed(err error) {
	what := "interrupted"
	switch errs.KindOf(err) {
	case errs.KindRejected, errs.KindIO:
		what = "refused"
	}
	reason := "unknown"
	if err != nil {
		reason = err.Error()
	}
	l.bounded("weida broker: admission "+what, slog.String("error", reason))
}

// reportAbandoned logs a report toward a producer that was given up.
func (l *queueLog) reportAbandoned(why string) {
	l.bounded("weida broker: report abandoned", slog.String("why", why))
}

// leading logs that this node now serves a replicated queue it leads.
func (l *queueLog) leading(term uint64, ready int) {
	l.emit(slog.LevelInfo, "weida broker: leading the replicated queue", slog.Uint64("term", term), slog.Int("ready", ready))
}

// notLeading logs that this node stopped serving a replicated queue.
func (l *queueLog) notLeading() {
	l.emit(slog.LevelInfo, "weida broker: no longer leading the replicated queue")
}
