package report

import (
	"image/color"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/weida-go/weida/tests/bench/internal/harness"
)

// queueFigure is one series of the queue plot: a case's figure on every
// queue stack.
type queueFigure struct {
	caseID, key, label string
	color              color.RGBA
	shape              draw.GlyphDrawer
}

// queuePlot is the persistent queue on every stack: publish rates on the
// left, produce-to-consume latency on the right, one x position per stack
// (those the run skipped stay empty).
func queuePlot(res *harness.Results, dir string) (*Plot, error) {
	g := group(res, "queue")
	if g == nil || len(g.Cases) == 0 || len(g.Columns) == 0 {
		return nil, nil
	}
	blue, orange := color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}
	rates, err := queuePanel(g, "Publish with confirm", "messages/s", []queueFigure{
		{caseID: "queue/confirm-1", key: "msgs_per_s", label: "one at a time", color: blue, shape: draw.CircleGlyph{}},
		{caseID: "queue/confirm-window", key: "msgs_per_s", label: "window in flight", color: orange, shape: draw.TriangleGlyph{}},
	})
	if err != nil {
		return nil, err
	}
	latency, err := queuePanel(g, "Produce to consume", "latency (µs)", []queueFigure{
		{caseID: "queue/produce-to-consume", key: "p50_us", label: "median", color: blue, shape: draw.CircleGlyph{}},
		{caseID: "queue/produce-to-consume", key: "p99_us", label: "p99", color: orange, shape: draw.TriangleGlyph{}},
	})
	if err != nil {
		return nil, err
	}
	if rates == nil || latency == nil {
		return nil, nil // nothing measured on any stack
	}
	file := "queue.png"
	if err := savePNG(filepath.Join(dir, file), [][]*plot.Plot{{rates, latency}}, 28*vg.Centimeter, 12*vg.Centimeter); err != nil {
		return nil, err
	}
	return &Plot{Group: "queue", File: file, Caption: "Persistent queue, 64 B messages, on each stack and storage setting: " +
		"publish-with-confirm rate (left) and produce-to-consume latency (right), log scales."}, nil
}

// queuePanel draws figures over the group's stacks, one x position each;
// it is nil when no stack has any of them.
func queuePanel(g *harness.Group, title, yLabel string, figures []queueFigure) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = yLabel
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	var ticks plot.ConstantTicks
	for i, s := range g.Columns {
		// "JetStream file (sync always)" → three short lines under its point.
		label := strings.Replace(strings.Replace(s, " ", "\n", 1), " (", "\n(", 1)
		ticks = append(ticks, plot.Tick{Value: float64(i + 1), Label: label})
	}
	p.X.Tick.Marker = ticks
	drawn := false
	for _, f := range figures {
		var c *harness.Case
		for i := range g.Cases {
			if g.Cases[i].ID == f.caseID {
				c = &g.Cases[i]
			}
		}
		if c == nil {
			continue
		}
		var xys plotter.XYs
		for i, s := range g.Columns {
			if v, ok := value(c, s, f.key); ok && v > 0 {
				xys = append(xys, plotter.XY{X: float64(i + 1), Y: v})
			}
		}
		if len(xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Color, sc.GlyphStyle.Shape, sc.GlyphStyle.Radius = f.color, f.shape, vg.Points(4)
		p.Add(sc)
		p.Legend.Add(f.label, sc)
		drawn = true
	}
	if !drawn {
		return nil, nil
	}
	padRange(p)
	p.X.Min, p.X.Max = 0.5, float64(len(g.Columns))+0.5 // padRange widens log x axes only; this one is linear
	return p, nil
}
