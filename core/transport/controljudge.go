package transport

import (
	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/wire"
)

// SubscribeJudge is implemented by a Handler that may refuse a SUBSCRIBE
// before it takes effect (a broker's consume permission, SEMANTICS.md
// §8.4): JudgeSubscribe returns 0 to take it, and Control follows, or the
// code the stream is stopped with (STOP_SENDING), and nothing else
// happens. SUBSCRIBE has no reply half, so the stop is the only answer a
// subscriber can see. It runs on the stream's goroutine and must not block.
type SubscribeJudge interface {
	JudgeSubscribe(c *Conn, sub *wire.Subscribe) wire.AppCode
}

// judgeSubscribe asks c's handler, when it judges, whether to take sub; a
// refusal stops s with the handler's code and reports false.
func (c *Conn) judgeSubscribe(sub *wire.Subscribe, s recvHalf) bool {
	j, ok := c.handler.(SubscribeJudge)
	if !ok {
		return true
	}
	if code := j.JudgeSubscribe(c, sub); code != 0 {
		s.CancelRead(quic.StreamErrorCode(code))
		return false
	}
	return true
}

// CreditJudge is implemented by a Handler that may refuse a CREDIT before
// it takes effect (a cluster node that does not lead the queue): 0 takes
// it, any other code stops the stream with it and Control is not called.
// It runs on the stream's goroutine and must not block.
type CreditJudge interface {
	JudgeCredit(c *Conn, cr *wire.Credit) wire.AppCode
}

// judgeCredit is judgeSubscribe for CREDIT.
func (c *Conn) judgeCredit(cr *wire.Credit, s recvHalf) bool {
	j, ok := c.handler.(CreditJudge)
	if !ok {
		return true
	}
	if code := j.JudgeCredit(c, cr); code != 0 {
		s.CancelRead(quic.StreamErrorCode(code))
		return false
	}
	return true
}
