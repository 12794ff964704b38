package plot

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/kernelad/anomaly/stats"
)

// Sizes of the critical-difference diagram's elements.
const (
	cdFont     = 10 // points: method names and tick labels
	cdRow      = 17 // points between two method rows
	cdBarGap   = 7  // points between two group bars
	cdBarWidth = 3  // points: the thickness of a group bar
	cdTop      = 40 // points above the axis: the CD bar, its label and the tick labels
)

// CDHeight returns a canvas height at which CDDiagram's picture of k
// methods has room for every row and up to k/2 group bars (plus the title),
// so that no two labels overlap.
func CDHeight(k int) vg.Length {
	rows := (k + 1) / 2
	return vg.Points(cdTop+30) + vg.Points(cdBarGap)*vg.Length(k/2+1) + vg.Points(cdRow)*vg.Length(rows) + vg.Points(6)
}

// CDDiagram draws Demšar's (2006) critical-difference diagram: an axis of
// average ranks from 1 (best, on the left) to k, each method's name (with
// its average rank) joined by a line to its place on the axis — the better
// half on the left, the worse half on the right — and thick bars under the
// axis joining the groups of methods whose average ranks differ by less
// than cd (stats.NemenyiGroups), which Nemenyi's test does not tell apart.
// A segment of length cd with its value is drawn above the axis.
//
// avgRank is typically stats.FriedmanResult.AvgRank and cd
// stats.CriticalDifference(k, n, α); names has one entry per method. The
// picture reads best at the width Width and the height CDHeight(k).
func CDDiagram(title string, names []string, avgRank []float64, cd float64) (*gplot.Plot, error) {
	k := len(names)
	if k < 2 {
		return nil, fmt.Errorf("plot: a critical-difference diagram needs at least 2 methods, got %d", k)
	}
	if len(avgRank) != k {
		return nil, fmt.Errorf("plot: %d method names and %d average ranks", k, len(avgRank))
	}
	for j, r := range avgRank {
		if !(r >= 1 && r <= float64(k)) {
			return nil, fmt.Errorf("plot: average rank %v of %s is not in [1, %d]", r, names[j], k)
		}
	}
	if !(cd > 0) || math.IsInf(cd, 0) {
		return nil, fmt.Errorf("plot: critical difference %v is not a positive number", cd)
	}
	p := gplot.New()
	p.Title.Text = title
	p.HideAxes()
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	sty := p.Title.TextStyle
	sty.Font.Size = vg.Points(cdFont)
	p.Add(&cdDiagram{names: names, rank: avgRank, cd: cd, groups: stats.NemenyiGroups(avgRank, cd), text: sty})
	return p, nil
}

// cdDiagram draws the critical-difference diagram in canvas units.
type cdDiagram struct {
	names  []string
	rank   []float64
	cd     float64
	groups [][]int
	text   text.Style
}

func (d *cdDiagram) label(j int) string {
	return d.names[j] + " (" + strconv.FormatFloat(d.rank[j], 'f', 2, 64) + ")"
}

func (d *cdDiagram) Plot(c draw.Canvas, _ *gplot.Plot) {
	k := len(d.names)
	order := make([]int, k)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case d.rank[a] < d.rank[b]:
			return -1
		case d.rank[a] > d.rank[b]:
			return 1
		}
		return 0
	})
	nl := (k + 1) / 2 // methods labelled on the left
	left, right := order[:nl], order[nl:]

	// Horizontal layout: the widest label on each side, a gap, the axis.
	gap := vg.Points(12)
	var lw, rw vg.Length
	for _, j := range left {
		lw = max(lw, d.text.Width(d.label(j)))
	}
	for _, j := range right {
		rw = max(rw, d.text.Width(d.label(j)))
	}
	x0, x1 := c.Min.X+lw+2*gap, c.Max.X-rw-2*gap
	if x1 <= x0 { // labels wider than the canvas: keep an axis anyway
		x0, x1 = c.Min.X+(c.Max.X-c.Min.X)/4, c.Max.X-(c.Max.X-c.Min.X)/4
	}
	xr := func(r float64) vg.Length { return x0 + (x1-x0)*vg.Length((r-1)/float64(k-1)) }

	black := color.Gray{}
	thin := draw.LineStyle{Color: black, Width: vg.Points(0.8)}
	axis := draw.LineStyle{Color: black, Width: vg.Points(1)}

	// The axis with ticks at every rank (half ranks smaller) and labels.
	ya := c.Max.Y - vg.Points(cdTop)
	c.StrokeLine2(axis, x0, ya, x1, ya)
	tick := d.text
	tick.XAlign, tick.YAlign = draw.XCenter, draw.YBottom
	for r := 1.0; r <= float64(k); r += 0.5 {
		h := vg.Points(3)
		if r == math.Trunc(r) {
			h = vg.Points(6)
			c.FillText(tick, vg.Point{X: xr(r), Y: ya + h + vg.Points(2)}, strconv.Itoa(int(r)))
		}
		c.StrokeLine2(axis, xr(r), ya, xr(r), ya+h)
	}

	// The critical difference, above the axis from rank 1.
	yc := ya + vg.Points(cdTop-10)
	xe := min(xr(1+d.cd), c.Max.X)
	c.StrokeLine2(axis, xr(1), yc, xe, yc)
	c.StrokeLine2(axis, xr(1), yc-vg.Points(3), xr(1), yc+vg.Points(3))
	c.StrokeLine2(axis, xe, yc-vg.Points(3), xe, yc+vg.Points(3))
	cdl := d.text
	cdl.XAlign, cdl.YAlign = draw.XLeft, draw.YCenter
	c.FillText(cdl, vg.Point{X: xe + vg.Points(4), Y: yc}, "CD = "+strconv.FormatFloat(d.cd, 'f', 2, 64))

	// Group bars under the axis, then one row per method.
	bar := draw.LineStyle{Color: black, Width: vg.Points(cdBarWidth)}
	y := ya - vg.Points(cdBarGap+2)
	ext := vg.Points(3) // bars reach a little past their end ranks
	for _, g := range d.groups {
		lo, hi := d.rank[g[0]], d.rank[g[len(g)-1]]
		c.StrokeLine2(bar, xr(lo)-ext, y, xr(hi)+ext, y)
		y -= vg.Points(cdBarGap)
	}
	y -= vg.Points(cdRow) - vg.Points(cdBarGap)
	lt, rt := d.text, d.text
	lt.XAlign, lt.YAlign = draw.XRight, draw.YCenter
	rt.XAlign, rt.YAlign = draw.XLeft, draw.YCenter
	for i, j := range left { // best first, nearest the axis
		yi := y - vg.Points(cdRow)*vg.Length(i)
		x := xr(d.rank[j])
		c.StrokeLines(thin, []vg.Point{{X: x, Y: ya}, {X: x, Y: yi}, {X: c.Min.X + lw + gap, Y: yi}})
		c.FillText(lt, vg.Point{X: c.Min.X + lw + gap - vg.Points(3), Y: yi}, d.label(j))
	}
	for i := range right { // worst first, nearest the axis
		j := right[len(right)-1-i]
		yi := y - vg.Points(cdRow)*vg.Length(i)
		x := xr(d.rank[j])
		c.StrokeLines(thin, []vg.Point{{X: x, Y: ya}, {X: x, Y: yi}, {X: c.Max.X - rw - gap, Y: yi}})
		c.FillText(rt, vg.Point{X: c.Max.X - rw - gap + vg.Points(3), Y: yi}, d.label(j))
	}
}

// RankSet is the average ranks of the methods under one metric, as
// stats.Friedman returns them (1 = best).
type RankSet struct {
	Metric  string
	AvgRank []float64
}

// RankBars draws the average ranks of several methods under several
// metrics as grouped bars, like Figure 3 of the R1STM paper: one group per
// metric, one bar per method (colours in the legend), the bar's height its
// average rank over the data sets (lower is better) and the number on top
// its place among the methods under that metric (1 = best; methods with
// equal average ranks share the better place).
func RankBars(title string, methods []string, sets []RankSet) (*gplot.Plot, error) {
	k := len(methods)
	if k == 0 || len(sets) == 0 {
		return nil, errors.New("plot: rank bars need at least one method and one metric")
	}
	top := 0.0
	for _, s := range sets {
		if len(s.AvgRank) != k {
			return nil, fmt.Errorf("plot: metric %q has %d average ranks for %d methods", s.Metric, len(s.AvgRank), k)
		}
		for j, r := range s.AvgRank {
			if !(r >= 1 && r <= float64(k)) {
				return nil, fmt.Errorf("plot: average rank %v of %s under %q is not in [1, %d]", r, methods[j], s.Metric, k)
			}
			top = max(top, r)
		}
	}
	p := gplot.New()
	p.Title.Text = title
	p.Y.Label.Text = "average rank (1 = best)"
	labels := make([]string, len(sets))
	for i, s := range sets {
		labels[i] = s.Metric
	}
	p.NominalX(labels...)
	p.X.Min, p.X.Max = -0.5, float64(len(sets))-0.5
	p.Y.Min, p.Y.Max = 0, math.Ceil(top)+0.5
	p.X.Tick.Label.Font.Size = vg.Points(11)
	p.Legend.TextStyle.Font.Size = vg.Points(11)
	p.Legend.Top, p.Legend.Left = true, false
	ticks := make([]gplot.Tick, 0, k+1)
	for r := 0; r <= k; r++ {
		ticks = append(ticks, gplot.Tick{Value: float64(r), Label: strconv.Itoa(r)})
	}
	p.Y.Tick.Marker = gplot.ConstantTicks(ticks)
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil // a line through the middle bar of each group would mislead
	p.Add(grid)
	p.Legend.Padding = vg.Points(2)
	rb := &rankBars{sets: sets, k: k, places: make([][]int, len(sets))}
	for i, s := range sets {
		rb.places[i] = places(s.AvgRank)
	}
	rb.text = p.Legend.TextStyle
	rb.text.Font.Size = vg.Points(9)
	rb.text.XAlign, rb.text.YAlign = draw.XCenter, draw.YBottom
	for j, m := range methods {
		rb.colors = append(rb.colors, plotutil.Color(j))
		p.Legend.Add(m, swatch{plotutil.Color(j)})
	}
	// Room for the legend right of the bars: a glyph box at the right edge
	// as wide as the legend makes the plot pad its data area by that much.
	var lw vg.Length
	for _, m := range methods {
		lw = max(lw, p.Legend.TextStyle.Width(" "+m))
	}
	rb.legend = lw + p.Legend.ThumbnailWidth + vg.Points(8)
	p.Add(rb)
	return p, nil
}

// places returns each method's place 1..k by average rank, equal ranks
// sharing the better place.
func places(avg []float64) []int {
	out := make([]int, len(avg))
	for i, a := range avg {
		out[i] = 1
		for _, b := range avg {
			if b < a {
				out[i]++
			}
		}
	}
	return out
}

// rankBars draws the grouped bars and their place labels in data
// coordinates: group g spans g−0.4 … g+0.4.
type rankBars struct {
	sets   []RankSet
	k      int
	places [][]int
	colors []color.Color
	text   text.Style
	legend vg.Length
}

func (b *rankBars) Plot(c draw.Canvas, p *gplot.Plot) {
	tx, ty := p.Transforms(&c)
	w := 0.8 / float64(b.k)
	for g, s := range b.sets {
		for j, r := range s.AvgRank {
			xl := float64(g) - 0.4 + float64(j)*w
			xa, xb := tx(xl+0.06*w), tx(xl+0.94*w)
			y0, y1 := ty(0), ty(r)
			c.FillPolygon(b.colors[j], []vg.Point{{X: xa, Y: y0}, {X: xb, Y: y0}, {X: xb, Y: y1}, {X: xa, Y: y1}})
			c.FillText(b.text, vg.Point{X: (xa + xb) / 2, Y: y1 + vg.Points(2)}, strconv.Itoa(b.places[g][j]))
		}
	}
}

// GlyphBoxes reserves the legend's width right of the data area.
func (b *rankBars) GlyphBoxes(*gplot.Plot) []gplot.GlyphBox {
	return []gplot.GlyphBox{{X: 1, Y: 1, Rectangle: vg.Rectangle{Max: vg.Point{X: b.legend}}}}
}

// swatch is a legend entry's filled square.
type swatch struct{ c color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	c.FillPolygon(s.c, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
}
