package quicsys

import "testing"

func TestOnlyTheTracedSystemAttachesATracerOnBothEnds(t *testing.T) {
	for _, traced := range []bool{false, true} {
		for _, dialling := range []bool{false, true} {
			if got := config(dialling, traced).Tracer != nil; got != traced {
				t.Errorf("traced %v, dialling %v: a tracer is attached: %v", traced, dialling, got)
			}
		}
	}
	if raw, qlog := (System{}).Name(), (System{Traced: true}).Name(); raw == qlog {
		t.Errorf("both systems are named %q", raw)
	}
}
