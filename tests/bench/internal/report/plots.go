package report

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/weida-go/weida/tests/bench/internal/harness"
)

// palette gives every system the same colour in every plot.
var palette = map[string]color.RGBA{
	"weida":   {R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	"quic-go": {R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	// quic-go with a qlog tracer: quic-go's orange, paler.
	"quic-go+qlog": {R: 0xff, G: 0xbb, B: 0x78, A: 0xff},
	// quic-go doing the least weida's design requires: quic-go's brown.
	"quic-go+floor": {R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
	"NATS":          {R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	"ZeroMQ":        {R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
}

func colorOf(system string) color.Color {
	if c, ok := palette[system]; ok {
		return c
	}
	return color.Gray{Y: 0x60}
}

// Plot is one written image and what it shows.
type Plot struct {
	Group, File, Caption string
}

// series is one system's line: x and y values, points without a y left out.
type series struct {
	system string
	xys    plotter.XYs
	dashed bool
	label  string
}

// newLogPlot makes a plot with logarithmic axes and a legend at the top left.
func newLogPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	return p
}

// addSeries draws each series as a line with points.
func addSeries(p *plot.Plot, all []series) error {
	for _, s := range all {
		if len(s.xys) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(s.xys)
		if err != nil {
			return err
		}
		line.Color, points.Color = colorOf(s.system), colorOf(s.system)
		line.Width = vg.Points(1.5)
		if s.dashed {
			line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(line, points)
		p.Legend.Add(s.label, line, points)
	}
	return nil
}

// sizeTicks labels byte counts on a log axis: 64B, 1KiB, …
func sizeTicks(sizes []float64) plot.ConstantTicks {
	var ticks plot.ConstantTicks
	for _, s := range sizes {
		ticks = append(ticks, plot.Tick{Value: s, Label: byteLabel(s)})
	}
	return ticks
}

func byteLabel(n float64) string {
	for _, u := range []struct {
		v    float64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.v {
			return fmt.Sprintf("%g %s", n/u.v, u.name)
		}
	}
	return fmt.Sprintf("%g B", n)
}

// countTicks labels the given counts.
func countTicks(counts []float64) plot.ConstantTicks {
	var ticks plot.ConstantTicks
	for _, c := range counts {
		ticks = append(ticks, plot.Tick{Value: c, Label: fmt.Sprintf("%g", c)})
	}
	return ticks
}

// padRange widens the x axis by a margin on its log scale so end points
// are not drawn on the frame, and raises the top of the y axis to leave
// the legend a band of its own.
func padRange(p *plot.Plot) {
	if p.X.Min > 0 && p.X.Max > 0 {
		p.X.Min, p.X.Max = p.X.Min/1.4, p.X.Max*1.4
	}
	if p.Y.Min > 0 && p.Y.Max > 0 {
		p.Y.Min, p.Y.Max = p.Y.Min/1.5, p.Y.Max*math.Pow(p.Y.Max/p.Y.Min, 0.6)
	}
}

// savePNG writes a grid of plots (rows of columns) as one PNG.
func savePNG(path string, grid [][]*plot.Plot, w, h vg.Length) error {
	img := vgimg.New(w, h)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: len(grid), Cols: len(grid[0]), PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align(grid, tiles, dc)
	for j := range grid {
		for i, p := range grid[j] {
			if p != nil {
				p.Draw(canvases[j][i])
			}
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// group finds a group by ID.
func group(res *harness.Results, id string) *harness.Group {
	for i := range res.Groups {
		if res.Groups[i].ID == id {
			return &res.Groups[i]
		}
	}
	return nil
}

// points collects one system's (case param, metric) points over cases,
// keeping those with a positive figure (log axes).
func points(cases []*harness.Case, system, metric string) plotter.XYs {
	var xys plotter.XYs
	for _, c := range cases {
		if v, ok := value(c, system, metric); ok && v > 0 && c.Param > 0 {
			xys = append(xys, plotter.XY{X: c.Param, Y: v})
		}
	}
	return xys
}

func caseRefs(g *harness.Group) []*harness.Case {
	out := make([]*harness.Case, len(g.Cases))
	for i := range g.Cases {
		out[i] = &g.Cases[i]
	}
	return out
}

func params(cases []*harness.Case) []float64 {
	var out []float64
	for _, c := range cases {
		out = append(out, c.Param)
	}
	return out
}

// writePlots draws every plot the results allow into dir.
func writePlots(res *harness.Results, dir string) ([]Plot, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var out []Plot
	for _, build := range []func(*harness.Results, string) (*Plot, error){
		latencyBySize, latencyPercentiles, throughputBySize, fanoutPlot, queuePlot,
	} {
		p, err := build(res, dir)
		if err != nil {
			return nil, err
		}
		if p != nil {
			out = append(out, *p)
		}
	}
	return out, nil
}

// latencyBySize is the Req/Rep median and p99 by message size.
func latencyBySize(res *harness.Results, dir string) (*Plot, error) {
	g := group(res, "reqrep")
	if g == nil {
		return nil, nil
	}
	cases := caseRefs(g)
	p := newLogPlot("Req/Rep round trip by message size", "request and reply size", "round trip (µs)")
	p.X.Tick.Marker = sizeTicks(params(cases))
	var all []series
	for _, s := range res.Systems {
		all = append(all, series{system: s, xys: points(cases, s, "p50_us"), label: s + " median"},
			series{system: s, xys: points(cases, s, "p99_us"), dashed: true, label: s + " p99"})
	}
	if err := addSeries(p, all); err != nil {
		return nil, err
	}
	padRange(p)
	file := "reqrep-latency.png"
	if err := savePNG(filepath.Join(dir, file), [][]*plot.Plot{{p}}, 18*vg.Centimeter, 12*vg.Centimeter); err != nil {
		return nil, err
	}
	return &Plot{Group: "reqrep", File: file, Caption: "Req/Rep round trip by message size: median (solid) and p99 (dashed), log scales."}, nil
}

// latencyPercentiles is the Req/Rep latency distribution, one panel per size.
func latencyPercentiles(res *harness.Results, dir string) (*Plot, error) {
	g := group(res, "reqrep")
	if g == nil || len(g.Cases) == 0 {
		return nil, nil
	}
	qs := []struct {
		key   string
		label string
		x     float64 // 1/(1-q): the "nines" position on a log axis
	}{{"p50_us", "p50", 2}, {"p75_us", "p75", 4}, {"p90_us", "p90", 10}, {"p99_us", "p99", 100}, {"p999_us", "p99.9", 1000}}
	var ticks plot.ConstantTicks
	for _, q := range qs {
		ticks = append(ticks, plot.Tick{Value: q.x, Label: q.label})
	}
	cols := 2
	rows := (len(g.Cases) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
	}
	for i := range g.Cases {
		c := &g.Cases[i]
		p := newLogPlot("Req/Rep "+c.Label, "percentile", "round trip (µs)")
		p.X.Tick.Marker = ticks
		var all []series
		for _, s := range res.Systems {
			var xys plotter.XYs
			for _, q := range qs {
				if v, ok := value(c, s, q.key); ok && v > 0 {
					xys = append(xys, plotter.XY{X: q.x, Y: v})
				}
			}
			all = append(all, series{system: s, xys: xys, label: s})
		}
		if err := addSeries(p, all); err != nil {
			return nil, err
		}
		padRange(p)
		grid[i/cols][i%cols] = p
	}
	for r := range grid { // Align needs every tile
		for c := range grid[r] {
			if grid[r][c] == nil {
				grid[r][c] = plot.New()
				grid[r][c].HideAxes()
			}
		}
	}
	file := "reqrep-percentiles.png"
	if err := savePNG(filepath.Join(dir, file), grid, 24*vg.Centimeter, vg.Length(rows)*10*vg.Centimeter); err != nil {
		return nil, err
	}
	return &Plot{Group: "reqrep", File: file, Caption: "Req/Rep latency percentiles (p50 to p99.9) for each message size, log scales."}, nil
}

// throughputBySize is one-way throughput from one producer by message
// size, with the bulk transfer as the largest message.
func throughputBySize(res *harness.Results, dir string) (*Plot, error) {
	g := group(res, "oneway")
	if g == nil {
		return nil, nil
	}
	var cases []*harness.Case
	for i := range g.Cases {
		if c := &g.Cases[i]; len(c.ID) > 3 && c.ID[len(c.ID)-3:] == "/1p" {
			cases = append(cases, c)
		}
	}
	bulk := group(res, "bulk")
	p := newLogPlot("One-way throughput by message size (one producer)", "message size", "payload throughput (MiB/s)")
	var all []series
	for _, s := range res.Systems {
		xys := points(cases, s, "mib_per_s")
		if bulk != nil {
			xys = append(xys, points(caseRefs(bulk), s, "mib_per_s")...)
		}
		all = append(all, series{system: s, xys: xys, label: s})
	}
	xs := params(cases)
	if bulk != nil {
		xs = append(xs, params(caseRefs(bulk))...)
	}
	p.X.Tick.Marker = sizeTicks(xs)
	if err := addSeries(p, all); err != nil {
		return nil, err
	}
	padRange(p)
	file := "oneway-throughput.png"
	if err := savePNG(filepath.Join(dir, file), [][]*plot.Plot{{p}}, 18*vg.Centimeter, 12*vg.Centimeter); err != nil {
		return nil, err
	}
	return &Plot{Group: "oneway", File: file, Caption: "Payload throughput by message size: one-way messages from one producer; " +
		"the largest size is the bulk transfer on one stream. Log scales."}, nil
}

// fanoutPlot is delivered copies/s and publisher CPU per copy by
// subscriber count.
func fanoutPlot(res *harness.Results, dir string) (*Plot, error) {
	g := group(res, "fanout")
	if g == nil {
		return nil, nil
	}
	cases := caseRefs(g)
	rate := newLogPlot("Fan-out: delivered copies/s", "subscribers", "copies/s")
	cpu := newLogPlot("Fan-out: publisher CPU per copy", "subscribers", "CPU per copy (µs)")
	for _, p := range []*plot.Plot{rate, cpu} {
		p.X.Tick.Marker = countTicks(params(cases))
	}
	var rates, cpus []series
	for _, s := range res.Systems {
		rates = append(rates, series{system: s, xys: points(cases, s, "copies_per_s"), label: s})
		cpus = append(cpus, series{system: s, xys: points(cases, s, "cpu_us_per_copy"), label: s})
	}
	if err := addSeries(rate, rates); err != nil {
		return nil, err
	}
	if err := addSeries(cpu, cpus); err != nil {
		return nil, err
	}
	for _, p := range []*plot.Plot{rate, cpu} {
		padRange(p)
		if p.Y.Max > 0 && !math.IsInf(p.Y.Max, 0) {
			p.Y.Max *= 2 // room for the legend
		}
	}
	file := "fanout.png"
	if err := savePNG(filepath.Join(dir, file), [][]*plot.Plot{{rate, cpu}}, 26*vg.Centimeter, 11*vg.Centimeter); err != nil {
		return nil, err
	}
	return &Plot{Group: "fanout", File: file, Caption: "Pub/Sub fan-out by subscriber count: delivered copies/s and publisher CPU per delivered copy. Log scales."}, nil
}
