// Package report turns one run's results into docs/BENCHMARKS.md and its
// plots (PNG, drawn with gonum.org/v1/plot).
package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/weida-go/weida/tests/bench/internal/harness"
)

// Options says where the report goes.
type Options struct {
	// Markdown is the report file.
	Markdown string
	// PlotDir receives the plots; the report links them relative to itself.
	PlotDir string
	// AnalysisFile, when set, is Markdown closing the report: the profile
	// analysis of the workloads where weida is furthest behind.
	AnalysisFile string
}

// Write draws the plots and writes the report.
func Write(res *harness.Results, o Options) error {
	plots, err := writePlots(res, o.PlotDir)
	if err != nil {
		return fmt.Errorf("plotting: %w", err)
	}
	var analysis []byte
	if o.AnalysisFile != "" {
		if analysis, err = os.ReadFile(o.AnalysisFile); err != nil {
			return err
		}
	}
	rel, err := filepath.Rel(filepath.Dir(o.Markdown), o.PlotDir)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	w := &writer{b: &b, res: res, plots: plots, plotPath: filepath.ToSlash(rel), analysis: analysis}
	w.document()
	return os.WriteFile(o.Markdown, b.Bytes(), 0o644)
}
