package plot

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/kernelad/anomaly/eval"
	"github.com/kernelad/anomaly/internal/output"
)

// Default picture size.
const (
	Width  = 6 * vg.Inch
	Height = 4.5 * vg.Inch
)

// Curve is one named line.
type Curve struct {
	Name string
	X, Y []float64
	// Steps draws the line as a staircase (horizontal, then vertical, as
	// matplotlib's steps-post) instead of straight segments.
	Steps bool
}

// Lines draws curves on one set of axes, one colour and dash per curve, with
// a legend.
func Lines(title, xlabel, ylabel string, curves []Curve) (*gplot.Plot, error) {
	p := gplot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, xlabel, ylabel
	for i, c := range curves {
		if len(c.X) != len(c.Y) {
			return nil, fmt.Errorf("plot: curve %q has %d x and %d y values", c.Name, len(c.X), len(c.Y))
		}
		pts := make(plotter.XYs, len(c.X))
		for k := range c.X {
			pts[k].X, pts[k].Y = c.X[k], c.Y[k]
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("plot: curve %q: %w", c.Name, err)
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i / 7)
		l.Width = vg.Points(1.5)
		if c.Steps {
			l.StepStyle = plotter.PostStep
		}
		p.Add(l)
		if c.Name != "" {
			p.Legend.Add(c.Name, l)
		}
	}
	p.Add(plotter.NewGrid())
	return p, nil
}

// Scores is the test scores of one method with the true labels (1 =
// anomaly).
type Scores struct {
	Name   string
	Scores []float64
	Labels []int
}

// ROC draws the ROC curves (eval.ROC: false positive rate against true
// positive rate) of several methods on one data set, with the diagonal of a
// random ranking; the legend gives each AUC (eval.AUCROC).
func ROC(title string, s []Scores) (*gplot.Plot, error) {
	var curves []Curve
	for _, m := range s {
		fpr, tpr, _ := eval.ROC(m.Scores, m.Labels)
		if fpr == nil {
			return nil, fmt.Errorf("plot: ROC of %s: %v", m.Name, eval.Check(m.Scores, m.Labels))
		}
		curves = append(curves, Curve{fmt.Sprintf("%s (AUC %.3f)", m.Name, eval.AUCROC(m.Scores, m.Labels)), fpr, tpr, false})
	}
	p, err := Lines(title, "false positive rate", "true positive rate", curves)
	if err != nil {
		return nil, err
	}
	diag, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	diag.Color = color.Gray{Y: 160}
	diag.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(diag)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1.02
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.YOffs = vg.Points(10)
	return p, nil
}

// PR draws the precision–recall curves (eval.PR) of several methods on one
// data set as staircases (the precision of each operating point held until
// the next recall, as scikit-learn draws them: straight segments between
// operating points would suggest precisions no threshold gives), with the
// level of a random ranking (the share of anomalies); the legend gives each
// average precision (eval.AveragePrecision).
func PR(title string, s []Scores) (*gplot.Plot, error) {
	var curves []Curve
	base := math.NaN()
	for _, m := range s {
		prec, rec, _ := eval.PR(m.Scores, m.Labels)
		if prec == nil {
			return nil, fmt.Errorf("plot: PR of %s: %v", m.Name, eval.Check(m.Scores, m.Labels))
		}
		curves = append(curves, Curve{fmt.Sprintf("%s (AP %.3f)", m.Name, eval.AveragePrecision(m.Scores, m.Labels)), rec, prec, true})
		pos := 0
		for _, y := range m.Labels {
			pos += y
		}
		base = float64(pos) / float64(len(m.Labels))
	}
	p, err := Lines(title, "recall", "precision", curves)
	if err != nil {
		return nil, err
	}
	if !math.IsNaN(base) {
		l, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: base}, {X: 1, Y: base}})
		l.Color = color.Gray{Y: 160}
		l.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		p.Add(l)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1.02
	p.Legend.Top, p.Legend.Left = true, false
	return p, nil
}

// ScoreFunc scores the rows of X (higher = more anomalous), as
// detector.Detector's Score does.
type ScoreFunc func(dst []float64, X mat.Matrix) ([]float64, error)

// grid is a heat map's values on a regular grid.
type grid struct {
	xs, ys []float64
	z      []float64 // row r (y index) major
}

func (g *grid) Dims() (c, r int)   { return len(g.xs), len(g.ys) }
func (g *grid) Z(c, r int) float64 { return g.z[r*len(g.xs)+c] }
func (g *grid) X(c int) float64    { return g.xs[c] }
func (g *grid) Y(r int) float64    { return g.ys[r] }
func (g *grid) Min() float64       { return 0 }
func (g *grid) Max() float64       { return 1 }
func linspace(lo, hi float64, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = lo + (hi-lo)*float64(i)/float64(n-1)
	}
	return v
}

// ScoreMap draws the scores of a fitted detector over the plane, like
// Figure 1 of the EXPoSE paper: a steps × steps grid over the bounding box
// of the points (enlarged by 15% on each side) is scored, and each cell is
// coloured by the rank of its score among the grid's scores (blue = the
// most normal, red = the most anomalous), so every method's map uses the
// full colour range whatever the scale of its scores. The points (n × 2,
// e.g. the training rows) are drawn on top: label 0 as black dots, label 1
// as red crosses (labels may be nil: all dots).
func ScoreMap(title string, score ScoreFunc, points mat.Matrix, labels []int, steps int) (*gplot.Plot, error) {
	n, d := points.Dims()
	if d != 2 {
		return nil, fmt.Errorf("plot: a score map needs 2-D points, got %d columns", d)
	}
	if labels != nil && len(labels) != n {
		return nil, fmt.Errorf("plot: %d labels for %d points", len(labels), n)
	}
	if steps < 2 {
		return nil, errors.New("plot: a score map needs at least 2 steps")
	}
	lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	for i := 0; i < n; i++ {
		for j := 0; j < 2; j++ {
			v := points.At(i, j)
			lo[j], hi[j] = math.Min(lo[j], v), math.Max(hi[j], v)
		}
	}
	for j := 0; j < 2; j++ {
		m := 0.15 * (hi[j] - lo[j])
		if m == 0 {
			m = 1
		}
		lo[j], hi[j] = lo[j]-m, hi[j]+m
	}
	g := &grid{xs: linspace(lo[0], hi[0], steps), ys: linspace(lo[1], hi[1], steps)}
	X := mat.NewDense(steps*steps, 2, nil)
	for r, y := range g.ys {
		for c, x := range g.xs {
			X.Set(r*steps+c, 0, x)
			X.Set(r*steps+c, 1, y)
		}
	}
	s, err := score(nil, X)
	if err != nil {
		return nil, fmt.Errorf("plot: scoring the grid: %w", err)
	}
	g.z = ranks(s)
	p := gplot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = "x₁", "x₂"
	h := plotter.NewHeatMap(g, moreland.SmoothBlueRed().Palette(64))
	p.Add(h)
	var normal, anomal plotter.XYs
	for i := 0; i < n; i++ {
		pt := plotter.XY{X: points.At(i, 0), Y: points.At(i, 1)}
		if labels != nil && labels[i] == 1 {
			anomal = append(anomal, pt)
		} else {
			normal = append(normal, pt)
		}
	}
	if len(normal) > 0 {
		sc, _ := plotter.NewScatter(normal)
		sc.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(1.3), Shape: draw.CircleGlyph{}}
		p.Add(sc)
		p.Legend.Add("training rows (normal)", sc)
	}
	if len(anomal) > 0 {
		sc, _ := plotter.NewScatter(anomal)
		sc.GlyphStyle = draw.GlyphStyle{Color: color.RGBA{G: 110, A: 255}, Radius: vg.Points(3.5), Shape: draw.CrossGlyph{}}
		p.Add(sc)
		p.Legend.Add("training rows (anomaly)", sc)
	}
	p.Legend.Top = true
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo[0], hi[0], lo[1], hi[1]
	return p, nil
}

// ranks maps v to its normalised ranks in [0, 1] (ties share the mean
// rank; NaN ranks lowest).
func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	key := func(i int) float64 {
		if math.IsNaN(v[i]) {
			return math.Inf(-1)
		}
		return v[i]
	}
	sort.SliceStable(idx, func(a, b int) bool { return key(idx[a]) < key(idx[b]) })
	out := make([]float64, len(v))
	den := float64(max(len(v)-1, 1))
	for a := 0; a < len(idx); {
		b := a
		for b+1 < len(idx) && key(idx[b+1]) == key(idx[a]) {
			b++
		}
		r := float64(a+b) / 2 / den
		for k := a; k <= b; k++ {
			out[idx[k]] = r
		}
		a = b + 1
	}
	return out
}

// Convergence draws the EXPoSE SGD convergence of the paper's Figure 2 in
// two panels over the iteration t: ‖w_t − w*‖ (log scale), and the test
// AUC of w_t with the AUC of the batch embedding w* as a dashed line.
func Convergence(title string, t, dist, auc []float64, batchAUC float64) (top, bottom *gplot.Plot, err error) {
	if len(t) != len(dist) || len(t) != len(auc) || len(t) == 0 {
		return nil, nil, fmt.Errorf("plot: convergence needs equal, non-empty series (%d, %d, %d)", len(t), len(dist), len(auc))
	}
	if slices.ContainsFunc(dist, func(v float64) bool { return !(v > 0) }) {
		return nil, nil, errors.New("plot: ‖w_t − w*‖ must be positive for its log scale")
	}
	top, err = Lines(title, "", "‖w_t − w*‖", []Curve{{Name: "SGD iterate", X: t, Y: dist}})
	if err != nil {
		return nil, nil, err
	}
	top.Y.Scale = gplot.LogScale{}
	top.Y.Tick.Marker = logTicks{}
	top.Legend.Top = true
	bottom, err = Lines("", "t (SGD iterations)", "test AUC-ROC", []Curve{{Name: "SGD w_t", X: t, Y: auc},
		{Name: fmt.Sprintf("batch w* (%.3f)", batchAUC), X: []float64{t[0], t[len(t)-1]}, Y: []float64{batchAUC, batchAUC}}})
	if err != nil {
		return nil, nil, err
	}
	bottom.Legend.Top, bottom.Legend.Left = false, false
	bottom.Legend.YOffs = vg.Points(10)
	return top, bottom, nil
}

// Sweeps draws the relative error of an iterative fit (CP-ALS) against the
// sweep number, one line per curve, on a log scale.
func Sweeps(title string, curves []Curve) (*gplot.Plot, error) {
	for _, c := range curves {
		if slices.ContainsFunc(c.Y, func(v float64) bool { return !(v > 0) }) {
			return nil, fmt.Errorf("plot: curve %q has an error ≤ 0, which a log scale cannot show", c.Name)
		}
	}
	p, err := Lines(title, "ALS sweep", "relative error ‖X − [[λ; A]]‖ / ‖X‖", curves)
	if err != nil {
		return nil, err
	}
	p.Y.Scale = gplot.LogScale{}
	p.Y.Tick.Marker = logTicks{}
	p.Legend.Top = true
	return p, nil
}

// Save writes the plots to path (see Write), in the format its extension
// names, through the project's output layer (internal/output): a regular
// file is written to a temporary file in its directory and renamed, so
// path ends up complete or untouched, keeping an existing file's mode.
func Save(path string, width, height vg.Length, plots ...*gplot.Plot) error {
	format := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	f, err := output.Create(path, output.Options{})
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := Write(f, format, width, height, plots...); err != nil {
		return err
	}
	return f.Commit()
}

// Write draws the plots and writes the picture to w in the given format
// (png, svg, pdf, eps, jpg, tif, as gonum/plot supports). One plot fills the
// width × height canvas; several are stacked top to bottom, each
// width × height, and are written as PNG only.
func Write(w io.Writer, format string, width, height vg.Length, plots ...*gplot.Plot) error {
	if len(plots) == 0 {
		return errors.New("plot: nothing to save")
	}
	if len(plots) == 1 {
		wt, err := plots[0].WriterTo(width, height, format)
		if err != nil {
			return err
		}
		_, err = wt.WriteTo(w)
		return err
	}
	if format != "png" {
		return fmt.Errorf("plot: stacked plots are written as .png only, not %q", format)
	}
	img := vgimg.New(width, height*vg.Length(len(plots)))
	dc := draw.New(img)
	rows := make([][]*gplot.Plot, len(plots))
	for i, p := range plots {
		rows[i] = []*gplot.Plot{p}
	}
	canvases := gplot.Align(rows, draw.Tiles{Rows: len(plots), Cols: 1, PadX: vg.Millimeter, PadY: vg.Millimeter,
		PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(2), PadRight: vg.Points(2)}, dc)
	for i, p := range plots {
		p.Draw(canvases[i][0])
	}
	_, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w)
	return err
}

// logTicks labels 1, 2 and 5 times the powers of ten in range (gonum's
// LogTicks labels only the powers, too few for a range under a decade).
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []gplot.Tick {
	var ts []gplot.Tick
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
		for _, m := range []float64{1, 2, 3, 4, 5, 6, 7, 8, 9} {
			v := m * math.Pow(10, e)
			if v < lo || v > hi {
				continue
			}
			t := gplot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			ts = append(ts, t)
		}
	}
	return ts
}
