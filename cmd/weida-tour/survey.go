package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	weida "github.com/weida-go/weida/core"
)

// surveyDeadline is how long the survey collects answers. Loopback
// answers take milliseconds; the silent respondent costs exactly this.
const surveyDeadline = time.Second

// tourSurvey asks three respondents at once, two of which answer, and
// shows the silent one counted rather than raised.
func tourSurvey(ctx context.Context, s story) error {
	answering := []string{"alice", "bob"}
	var respondents []*party
	defer func() { closeAll(respondents) }()
	var urls []string
	for _, name := range append(slices.Clone(answering), "carol") {
		p, err := newServingParty(name)
		if err != nil {
			return err
		}
		respondents = append(respondents, p)
		r, err := p.binding.Respondent("/survey")
		if err != nil {
			return err
		}
		urls = append(urls, p.binding.URL("/survey"))
		if slices.Contains(answering, name) {
			go answerWith(ctx, r, name)
		} else {
			go stayQuiet(ctx, r)
		}
	}
	s.say("respondents alice and bob answer with their names; carol hears the question and stays quiet")

	asker, err := newParty("surveyor")
	if err != nil {
		return err
	}
	defer asker.close()
	surveyor := asker.rt.Surveyor(weida.TrustByAddress())
	for _, url := range urls {
		if err := surveyor.Connect(ctx, url); err != nil {
			return fmt.Errorf("survey: connect %s: %w", short(url), err)
		}
	}
	question := "who is there?"
	got, err := surveyor.Survey(ctx, []byte(question), surveyDeadline, 1<<10)
	if err != nil {
		return fmt.Errorf("survey: %w", err)
	}
	var replies []string
	for _, r := range got.Replies {
		replies = append(replies, string(r))
	}
	slices.Sort(replies)
	s.say("survey %q with a %v deadline: asked %d, replies [%s], failed %d, silent %d",
		question, surveyDeadline, got.Asked, strings.Join(replies, " "), got.Failed, got.Silent())
	if got.Asked != 3 || !slices.Equal(replies, answering) || got.Failed != 0 || got.Silent() != 1 {
		return fmt.Errorf("survey: want asked 3, replies [alice bob], failed 0, silent 1")
	}
	return nil
}

// answerWith answers every question with name.
func answerWith(ctx context.Context, r *weida.Respondent, name string) {
	for {
		req, err := r.Accept(ctx, 1<<10)
		if err != nil {
			return
		}
		_ = req.Reply(ctx, []byte(name))
	}
}

// stayQuiet takes every question and never answers; the runtime's end
// releases them.
func stayQuiet(ctx context.Context, r *weida.Respondent) {
	for {
		if _, err := r.Accept(ctx, 1<<10); err != nil {
			return
		}
	}
}
