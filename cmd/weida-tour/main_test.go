package main

import (
	"context"
	"strings"
	"testing"
)

func TestTourPlaysEverySceneAsSpecified(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), tourTimeout)
	defer cancel()
	var out strings.Builder
	if err := runTour(ctx, &out); err != nil {
		t.Fatalf("the tour failed: %v\n%s", err, out.String())
	}
	for _, sc := range scenes {
		if !strings.Contains(out.String(), "== "+sc.title+"\n") {
			t.Errorf("the tour did not tell the scene %q:\n%s", sc.title, out.String())
		}
	}
}
