package wakeup

import (
	"runtime"
	"testing"
	"time"
)

func TestMeasureTimesBothPlacements(t *testing.T) {
	f, err := Measure(200, 20*time.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	// A wake-up that took no time, or over a second, was not measured.
	if f.SameCPU <= 0 || f.SameCPU > time.Second {
		t.Fatalf("same-CPU wake-up %v", f.SameCPU)
	}
	if runtime.NumCPU() > 1 && (f.AcrossCPUs <= 0 || f.AcrossCPUs > time.Second) {
		t.Fatalf("cross-CPU wake-up %v", f.AcrossCPUs)
	}
	t.Logf("one-way wake-up: same CPU %v, across CPUs %v", f.SameCPU, f.AcrossCPUs)
}

func TestMeasureRefusesNoRounds(t *testing.T) {
	if _, err := Measure(0, 0); err == nil {
		t.Fatal("Measure(0, 0) succeeded")
	}
}
