package main

/*
#include "bridge.h"
*/
import "C"

import (
	"context"
	"fmt"
	"unsafe"

	weida "github.com/weida-go/weida/core"
)

type surveyorObj struct {
	scope
	s *weida.Surveyor
}

func (*surveyorObj) role() role { return roleSurveyor }
func (s *surveyorObj) release() { s.closeWith(func() { _ = s.s.Close() }) }

type respondentObj struct {
	scope
	r *weida.Respondent
}

func (*respondentObj) role() role { return roleRespondent }
func (r *respondentObj) release() { r.closeWith(func() { _ = r.r.Close() }) }

// surveyObj is what one survey collected, replies copied to C memory: a
// plain value that keeps no runtime alive.
type surveyObj struct {
	counts  weida.Survey // Replies emptied: the bytes live in replies
	replies []cBlock
}

func (*surveyObj) role() role { return roleSurvey }
func (s *surveyObj) release() {
	for _, r := range s.replies {
		r.free()
	}
}

func newSurvey(res *weida.Survey) uint64 {
	s := &surveyObj{counts: *res, replies: make([]cBlock, 0, len(res.Replies))}
	for _, r := range res.Replies {
		s.replies = append(s.replies, newCBlock(r))
	}
	s.counts.Replies = nil
	return handles.insert(s)
}

func surveyorConnect(h C.weida_surveyor_t, url *C.char) prepared {
	return on(uint64(h), func(s *surveyorObj) prepared { return connectCall(s.scope, s.s.Connect, url) })
}

//export weida_surveyor_connect
func weida_surveyor_connect(h C.weida_surveyor_t, url *C.char) (rc C.int) {
	defer recoverInto(&rc)
	return block0(surveyorConnect(h, url))
}

//export weida_surveyor_connect_async
func weida_surveyor_connect_async(h C.weida_surveyor_t, url *C.char, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(surveyorConnect(h, url), cb, user, op)
}

func surveyorSurvey(h C.weida_surveyor_t, data unsafe.Pointer, n C.size_t, secs C.double, maxReply C.size_t) prepared {
	return on(uint64(h), func(s *surveyorObj) prepared {
		p, err := inBytes(data, n, "data")
		if err != nil {
			return refused(err)
		}
		deadline, err := seconds(secs, "deadline_seconds")
		if err != nil {
			return refused(err)
		}
		return s.prepare(func(ctx context.Context) (uint64, uint64, error) {
			res, err := s.s.Survey(ctx, p, deadline, ceiling(maxReply))
			if err != nil {
				return 0, 0, err
			}
			return newSurvey(res), 0, nil
		})
	})
}

//export weida_surveyor_survey
func weida_surveyor_survey(h C.weida_surveyor_t, data unsafe.Pointer, n C.size_t, secs C.double, maxReply C.size_t, out *C.weida_survey_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(surveyorSurvey(h, data, n, secs, maxReply), out, "out")
}

//export weida_surveyor_survey_async
func weida_surveyor_survey_async(h C.weida_surveyor_t, data unsafe.Pointer, n C.size_t, secs C.double, maxReply C.size_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(surveyorSurvey(h, data, n, secs, maxReply), cb, user, op)
}

//export weida_surveyor_peer_count
func weida_surveyor_peer_count(h C.weida_surveyor_t, count *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return getCount(uint64(h), count, func(s *surveyorObj) uint64 { return uint64(s.s.PeerCount()) })
}

//export weida_survey_counts
func weida_survey_counts(h C.weida_survey_t, counts *C.weida_survey_counts_t) (rc C.int) {
	defer recoverInto(&rc)
	s, err := lookup[*surveyObj](uint64(h))
	if err != nil {
		return fail(err)
	}
	c := s.counts
	val := C.weida_survey_counts_t{asked: C.uint64_t(c.Asked), failed: C.uint64_t(c.Failed), late: C.uint64_t(c.Late),
		silent: C.uint64_t(c.Asked - len(s.replies) - c.Failed), replies: C.uint64_t(len(s.replies))}
	if err := writeSized(counts, val, "counts"); err != nil {
		return fail(err)
	}
	return codeOK
}

//export weida_survey_reply
func weida_survey_reply(h C.weida_survey_t, index C.size_t, data *unsafe.Pointer, n *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	s, err := lookup[*surveyObj](uint64(h))
	if err != nil {
		return fail(err)
	}
	if uint64(index) >= uint64(len(s.replies)) {
		return fail(invalid(fmt.Sprintf("the survey has %d replies; index %d is out of range", len(s.replies), uint64(index))))
	}
	return s.replies[index].lend(data, n)
}

func respondentAccept(h C.weida_respondent_t, maxBytes C.size_t) prepared {
	return on(uint64(h), func(r *respondentObj) prepared { return acceptCall(r.scope, r.r.Accept, maxBytes) })
}

//export weida_respondent_accept
func weida_respondent_accept(h C.weida_respondent_t, maxBytes C.size_t, out *C.weida_request_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(respondentAccept(h, maxBytes), out, "out")
}

//export weida_respondent_accept_async
func weida_respondent_accept_async(h C.weida_respondent_t, maxBytes C.size_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(respondentAccept(h, maxBytes), cb, user, op)
}

//export weida_respondent_path
func weida_respondent_path(h C.weida_respondent_t, buf *C.char, capacity C.size_t, needed *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return getText(uint64(h), buf, capacity, needed, func(r *respondentObj) string { return r.r.Path() })
}
