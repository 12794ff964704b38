package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/kernelad/anomaly/bench"
	"github.com/kernelad/anomaly/cpd"
	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/detector"
	kit "github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/output"
	aplot "github.com/kernelad/anomaly/plot"
	"github.com/spf13/cobra"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

const plotLong = `Draw pictures (PNG, or SVG/PDF by the --out extension) with gonum/plot.

  roc, pr  ROC or precision-recall curves of methods on one data set, one
           line per method (the bench protocol's test split of one seed;
           one normal class for class-labelled data), AUC or AP in the legend.
  map      the scores of one method over the plane, fit on the 2-D banana
           data set (dataset.Banana, 5% uniform anomalies), with the training
           rows on top, like Figure 1 of the EXPoSE paper; colour = rank of
           the score over the grid (blue normal, red anomalous).
  sgd      EXPoSE's SGD (Algorithm 1) against the batch mean embedding w*,
           like Figure 2 of the EXPoSE paper: ‖w_t − w*‖ and test AUC against t.
  cpals    CP-ALS relative error against sweeps on a planted tensor, SVD
           and random initialisation (package cpd).

--data takes a file or embedded:NAME (the data sets of "anomaly bench").`

func newPlotCmd(stderr io.Writer) *cobra.Command {
	c := &cobra.Command{
		Use:   "plot roc|pr|map|sgd|cpals --out FILE ...",
		Short: "Draw ROC/PR curves, score maps and convergence plots",
		Long:  plotLong,
		Example: `  anomaly plot roc --data embedded:6_cardio --methods expose,kde,ocsvm --out cardio_roc.png
  anomaly plot map --method ocsvm --set nu=0.1 --out banana_ocsvm.png
  anomaly plot sgd --data embedded:6_cardio --iterations 3000 --out sgd.png`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("plot: name a picture: roc, pr, map, sgd or cpals")
			}
			return usagef("plot: unknown picture %q (want roc, pr, map, sgd or cpals)", args[0])
		},
		RunE: func(*cobra.Command, []string) error { return nil },
		// The flags of a picture given to a wrong or missing picture
		// name are not the error: "plot bogus --out p.png" said
		// "unknown flag: --out".
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
	}
	c.AddCommand(newCurveCmd("roc", stderr), newCurveCmd("pr", stderr), newMapCmd(stderr), newSGDCmd(stderr), newCPALSCmd(stderr))
	return c
}

// pictureFlags are the flags every plot subcommand has: the picture file
// (--out, required) and the memory budget (--max-memory).
type pictureFlags struct {
	out, maxMemory string
}

// newPictureCmd returns a plot subcommand that takes no positional
// arguments and draws with run into the picture file of the required flag
// --out; it binds --out (outUsage is its help) and --max-memory to pf.
// SIGINT and SIGTERM cancel run's ctx: a run that then fails is reported
// as interrupted, with no picture written (exit 130; the process was
// killed by the signal, with no message).
func newPictureCmd(use, short string, pf *pictureFlags, outUsage string, run func(ctx context.Context) error) *cobra.Command {
	c := &cobra.Command{Use: use, Short: short, Args: noArgs, RunE: runRequired([]string{"out"}, func(ctx context.Context) error {
		ctx, stop := stopSignals(ctx)
		defer stop()
		// The format before any work (a misspelt .pgn failed with
		// exit 3 after the fits).
		if err := checkPictureFormat(pf.out); err != nil {
			return err
		}
		if err := run(ctx); err != nil {
			if ctx.Err() != nil {
				return plotInterrupted(pf.out)
			}
			return err
		}
		return nil
	})}
	c.Flags().StringVar(&pf.out, "out", "", outUsage)
	c.Flags().StringVar(&pf.maxMemory, "max-memory", "", "memory the plot may plan to use, as in 4GB (default: 75% of the machine's, the container's or the address-space limit)")
	return c
}

// plotInterrupted is the error of a plot stopped by SIGINT or SIGTERM.
func plotInterrupted(out string) error {
	return &exitError{ExitInterrupted, fmt.Errorf("plot interrupted; no picture written to %s", out)}
}

// pictureFormats are the file extensions gonum/plot writes.
var pictureFormats = []string{"eps", "jpeg", "jpg", "pdf", "png", "svg", "tex", "tif", "tiff"}

// checkPictureFormat refuses a picture path whose extension gonum/plot
// cannot write, as a usage error.
func checkPictureFormat(path string) error {
	format := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	if !slices.Contains(pictureFormats, format) {
		return usagef("--out %q: a picture is written as .%s, by its extension", path, strings.Join(pictureFormats, ", ."))
	}
	return nil
}

type curveOptions struct {
	pictureFlags
	data    string
	methods string
	seed    uint64
	class   int
	sets    []string
}

func newCurveCmd(kind string, stderr io.Writer) *cobra.Command {
	var o curveOptions
	name := map[string]string{"roc": "ROC", "pr": "precision-recall"}[kind]
	c := newPictureCmd(kind+" --out FILE [--data FILE] [--methods a,b]", "Draw "+name+" curves of methods on one data set",
		&o.pictureFlags, "picture file to write (.png, .svg, .pdf)", func(ctx context.Context) error {
			return runCurves(ctx, kind, o, stderr)
		})
	f := c.Flags()
	f.StringVar(&o.data, "data", bench.EmbeddedPrefix+"6_cardio", "data file or embedded:NAME")
	f.StringVar(&o.methods, "methods", "all", "comma-separated methods, or all")
	f.Uint64Var(&o.seed, "seed", 1, "split seed (below 2^32)")
	f.IntVar(&o.class, "class", 0, "normal class for class-labelled data")
	f.StringArrayVar(&o.sets, "set", nil, "method parameter METHOD.KEY=VALUE (repeatable)")
	return c
}

// openData opens a data reference for plot, its values within budget
// bytes, as bad data when it fails. It reads beside the signals (a named
// pipe no one writes blocks in open(2), which looks at no context).
func openData(ctx context.Context, ref string, budget int64, source string) (*dataset.Dataset, error) {
	ds, err := beside(ctx, func() (*dataset.Dataset, error) { return bench.OpenWithin(ref, budget) })
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		if oe := overBudgetErr(err, source); oe != nil {
			return nil, oe
		}
		return nil, dataFileErr(ref, err)
	}
	return ds, nil
}

// runCurves is the plot roc and plot pr commands: run every method on a
// split of one data set and draw the curves of their scores.
func runCurves(ctx context.Context, kind string, o curveOptions, stderr io.Writer) error {
	if o.seed >= 1<<32 {
		// The split seed is 32 bits, as bench's --seeds (every run
		// failed, and the command said no method produced scores).
		return usagef("--seed %d: the split seed is below 2^32", o.seed)
	}
	if err := checkOutput(o.out, nil, o.data); err != nil {
		return err
	}
	methods := detector.Names()
	if o.methods != "all" {
		var err error
		if methods, err = parseMethods(o.methods); err != nil {
			return err
		}
	}
	params, err := benchSets(o.sets, methods)
	if err != nil {
		return err
	}
	budget, source, err := memoryBudget(o.maxMemory)
	if err != nil {
		return err
	}
	ds, err := openData(ctx, o.data, budget, source)
	if err != nil {
		return err
	}
	class := -1
	if ds.Y == nil && ds.Class != nil {
		class = o.class
	}
	series, err := o.series(ctx, ds, bench.Task{Data: o.data, Seed: o.seed, Class: class, KeepScores: true, MaxBytes: budget}, methods, params, stderr)
	if err != nil {
		return err
	}
	title := fmt.Sprintf("%s, seed %d", bench.DataName(o.data), o.seed)
	if class >= 0 {
		title += fmt.Sprintf(", normal class %d", class)
	}
	return saveCurves(ctx, kind, title, series, o.out, o.data)
}

// series runs each method (task with the method and its parameters) on
// ds and returns the scores of those that ran, noting on stderr the ones
// left out.
func (o curveOptions) series(ctx context.Context, ds *dataset.Dataset, task bench.Task, methods []string, params map[string]map[string]string, stderr io.Writer) ([]aplot.Scores, error) {
	var series []aplot.Scores
	for _, m := range methods {
		if bench.IsTensorMethod(m) && ds.Shape == nil {
			continue
		}
		// Each run under the budget, as bench's: a fit over it is
		// refused (and left out), not run.
		t := task
		t.Method, t.Params = m, params[m]
		out, _ := beside(ctx, func() (bench.Outcome, error) { return bench.RunTask(ctx, ds, t), nil })
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !out.OK() {
			fmt.Fprintf(stderr, "anomaly: note: plot: %s: %s (left out)\n", m, oneLine(out.Err))
			continue
		}
		series = append(series, aplot.Scores{Name: m, Scores: out.Scores, Labels: out.Labels})
	}
	if len(series) == 0 {
		return nil, dataErr(fmt.Errorf("%s: no method produced scores", o.data))
	}
	return series, nil
}

func saveCurves(ctx context.Context, kind, title string, series []aplot.Scores, out string, inputs ...string) error {
	var (
		p   *gplot.Plot
		err error
	)
	if kind == "roc" {
		p, err = aplot.ROC("ROC: "+title, series)
	} else {
		p, err = aplot.PR("Precision-recall: "+title, series)
	}
	if err != nil {
		return dataErr(err)
	}
	return savePicture(ctx, out, inputs, p)
}

// savePicture writes plots (stacked) to path, which must not be one of
// inputs.
func savePicture(ctx context.Context, path string, inputs []string, plots ...*gplot.Plot) error {
	return savePictureSized(ctx, path, inputs, aplot.Width, aplot.Height, plots...)
}

// savePictureNoted is savePicture of the one picture p, which depends on
// no input file, followed by a note on stderr that it was written.
func savePictureNoted(ctx context.Context, stderr io.Writer, path string, p *gplot.Plot) error {
	if err := savePicture(ctx, path, nil, p); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "plot: wrote %s\n", path)
	return nil
}

// savePictureSized is savePicture on a canvas of w × h. A signal (ctx
// done) before the picture is complete leaves the file as it was and
// returns ctx's error.
func savePictureSized(ctx context.Context, path string, inputs []string, w, h vg.Length, plots ...*gplot.Plot) error {
	out, err := createOutput(ctx, path, nil, nil, inputs...)
	if err != nil {
		return err
	}
	defer out.Abort()
	format := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	if err := aplot.Write(out, format, w, h, plots...); err != nil {
		return internalErr(fmt.Errorf("%s: %w", path, output.Unwrap(err)))
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return commitOutput(out)
}

type mapOptions struct {
	pictureFlags
	method    string
	sets      []string
	n         int
	anomalies float64
	seed      uint64
	steps     int
}

func newMapCmd(stderr io.Writer) *cobra.Command {
	var o mapOptions
	c := newPictureCmd("map --out FILE [--method NAME] [--set k=v]...", "Draw a method's scores over the banana data set (EXPoSE paper, Figure 1)",
		&o.pictureFlags, "picture file to write", func(ctx context.Context) error { return runMap(ctx, o, stderr) })
	f := c.Flags()
	f.StringVar(&o.method, "method", "expose", "detection method")
	f.StringArrayVar(&o.sets, "set", nil, "method parameter key=value (repeatable)")
	f.IntVar(&o.n, "n", 500, "rows of the banana data set")
	f.Float64Var(&o.anomalies, "anomalies", 0.05, "share of uniform anomalies, in [0, 1)")
	f.Uint64Var(&o.seed, "seed", 1, "seed of the data and the method")
	f.IntVar(&o.steps, "steps", 150, "grid steps per axis")
	return c
}

func runMap(ctx context.Context, o mapOptions, stderr io.Writer) error {
	if o.n < 10 || !(o.anomalies >= 0 && o.anomalies < 1) || o.steps < 2 || o.steps > 1000 {
		return usagef("plot map: want --n ≥ 10, --anomalies in [0, 1), --steps in [2, 1000]")
	}
	params, err := parseSet(o.sets)
	if err != nil {
		return err
	}
	d, err := detector.New(o.method, params, detector.Options{Seed: &o.seed})
	if err != nil {
		return usageErr(err)
	}
	// The banana rows (n × 2 and their labels), the grid of steps²
	// points with their scores and ranks, and the method's fit on the
	// rows: --n has no upper bound but the memory budget (--n 3·10⁹ ran
	// out of memory with a Go runtime trace).
	size := kit.Size{Rows: o.n, Cols: 2, NonZeros: 2 * int64(o.n)}
	base := 24*float64(o.n) + 40*float64(o.steps)*float64(o.steps)
	if err := planMemory("plot map", "lower --n or --steps, or the method's parameters (--set)", o.maxMemory, base, d, size); err != nil {
		return err
	}
	title := fmt.Sprintf("%s on banana data (n = %d, %g%% anomalies)", o.method, o.n, 100*o.anomalies)
	if len(o.sets) > 0 {
		title += ", " + strings.Join(o.sets, " ")
	}
	// Beside the signals: the grid's scoring looks at no context.
	p, err := beside(ctx, func() (*gplot.Plot, error) {
		ds := dataset.Banana(o.n, o.anomalies, rand.NewPCG(o.seed, 0))
		if err := d.Fit(ctx, ds.X); err != nil {
			return nil, dataErr(fmt.Errorf("banana data: %w", err))
		}
		p, err := aplot.ScoreMap(title, d.Score, ds.X, ds.Y, o.steps)
		if err != nil {
			return nil, dataErr(err)
		}
		return p, nil
	})
	if err != nil {
		return err
	}
	return savePictureNoted(ctx, stderr, o.out, p)
}

type sgdOptions struct {
	pictureFlags
	data                        string
	seed                        uint64
	features, iterations, every int
}

func newSGDCmd(stderr io.Writer) *cobra.Command {
	var o sgdOptions
	c := newPictureCmd("sgd --out FILE [--data FILE]", "Draw EXPoSE's SGD convergence: ‖w_t − w*‖ and AUC against t (EXPoSE paper, Figure 2)",
		&o.pictureFlags, "picture file to write (.png)", func(ctx context.Context) error { return runSGD(ctx, o, stderr) })
	f := c.Flags()
	f.StringVar(&o.data, "data", bench.EmbeddedPrefix+"6_cardio", "labelled data file or embedded:NAME (ADBench split)")
	f.Uint64Var(&o.seed, "seed", 1, "seed of the split, the feature map and the samples")
	f.IntVar(&o.features, "features", 2000, "random Fourier features D")
	f.IntVar(&o.iterations, "iterations", 2000, "SGD iterations T")
	f.IntVar(&o.every, "every", 10, "iterations between recorded points")
	return c
}

// runSGD is the plot sgd command: trace EXPoSE's SGD on a split of the
// data set and draw the distance to the batch solution and the AUC.
func runSGD(ctx context.Context, o sgdOptions, stderr io.Writer) error {
	if err := o.check(); err != nil {
		return err
	}
	budget, source, err := memoryBudget(o.maxMemory)
	if err != nil {
		return err
	}
	ds, err := openData(ctx, o.data, budget, source)
	if err != nil {
		return err
	}
	train, test, err := bench.Split(ds, -1, o.seed, false)
	if err != nil {
		return dataErr(err)
	}
	if n1, n := countAnomalies(test.Y); n1 == 0 || n1 == n {
		return dataErr(fmt.Errorf("%s: the test split holds %d anomalies among %d labelled rows: its AUC is undefined; use data with both kinds", o.data, n1, n))
	}
	tr, batch, err := o.trace(ctx, train, test)
	if err != nil {
		return err
	}
	t, dist, auc := make([]float64, len(tr)), make([]float64, len(tr)), make([]float64, len(tr))
	for i, p := range tr {
		t[i], dist[i], auc[i] = float64(p.T), p.Dist, p.AUC
	}
	title := fmt.Sprintf("EXPoSE SGD on %s (seed %d, D = %d)", bench.DataName(o.data), o.seed, o.features)
	top, bottom, err := aplot.Convergence(title, t, dist, auc, batch)
	if err != nil {
		return dataErr(err)
	}
	if err := savePicture(ctx, o.out, []string{o.data}, top, bottom); err != nil {
		return err
	}
	last := tr[len(tr)-1]
	fmt.Fprintf(stderr, "plot: wrote %s; T = %d: ‖w_T − w*‖ = %.4g, AUC %.4f (batch %.4f)\n", o.out, last.T, last.Dist, last.AUC, batch)
	return nil
}

// check checks the flags of plot sgd before any work.
func (o sgdOptions) check() error {
	if !strings.EqualFold(filepath.Ext(o.out), ".png") {
		return usagef("--out %q: the sgd picture (two stacked plots) is written as .png only", o.out)
	}
	if err := checkOutput(o.out, nil, o.data); err != nil {
		return err
	}
	if o.features < 1 || o.iterations < 1 || o.every < 1 {
		return usagef("plot sgd: --features, --iterations and --every must be ≥ 1")
	}
	if o.every > o.iterations {
		return usagef("plot sgd: --every %d is more than --iterations %d: no point would be recorded", o.every, o.iterations)
	}
	if _, ok := detector.Lookup("expose"); !ok {
		return usagef("plot sgd: the expose method is not in this program")
	}
	return nil
}

// trace fits expose on train, in batch and by SGD, within the memory
// budget, and returns the SGD trace and the batch solution's AUC on test.
func (o sgdOptions) trace(ctx context.Context, train, test *dataset.Dataset) ([]bench.SGDPoint, float64, error) {
	// The trace fits expose (batch and SGD) with D features on the split:
	// its estimate, twice, bounds it (--features 10⁸ grew past 6 GB).
	ex, err := detector.New("expose", map[string]string{"map": "rff", "features": strconv.Itoa(o.features)}, detector.Options{Seed: &o.seed})
	if err != nil {
		return nil, 0, usageErr(err)
	}
	if err := planMemory("plot sgd", "lower --features, or use smaller --data", o.maxMemory, 0, ex, kit.SizeOf(train.X), kit.SizeOf(train.X)); err != nil {
		return nil, 0, err
	}
	type traced struct {
		points []bench.SGDPoint
		batch  float64
	}
	res, err := beside(ctx, func() (traced, error) {
		tr, batch, err := bench.SGDTrace(ctx, train, test, bench.SGDTraceConfig{Features: o.features, Iterations: o.iterations, Every: o.every, Seed: o.seed})
		return traced{tr, batch}, err
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, err
		}
		return nil, 0, dataErr(err)
	}
	return res.points, res.batch, nil
}

type cpalsOptions struct {
	pictureFlags
	shape      string
	rank       int
	noise      float64
	iterations int
	seed       uint64
}

func newCPALSCmd(stderr io.Writer) *cobra.Command {
	var o cpalsOptions
	c := newPictureCmd("cpals --out FILE [--shape 40x40x40] [--rank 5] [--noise 0.01]", "Draw CP-ALS relative error against sweeps, SVD and random initialisation",
		&o.pictureFlags, "picture file to write", func(ctx context.Context) error { return runCPALS(ctx, o, stderr) })
	c.Long = `Draw the relative error of CP-ALS (package cpd) against the sweep, for SVD
and random initialisation, on a planted tensor: standard normal factors of
the given rank, unit weights, Gaussian noise of relative level --noise. The
errors after every sweep come from one run per initialisation (cpd's
Config.Trace), with the convergence test off so that it runs all
--iterations sweeps.`
	f := c.Flags()
	f.StringVar(&o.shape, "shape", "40x40x40", "tensor shape")
	f.IntVar(&o.rank, "rank", 5, "planted and fitted rank")
	f.Float64Var(&o.noise, "noise", 0.01, "relative noise level")
	f.IntVar(&o.iterations, "iterations", 40, "sweeps to trace")
	f.Uint64Var(&o.seed, "seed", 1, "seed of the tensor and the random initialisation")
	return c
}

// runCPALS is the plot cpals command: run CP-ALS from SVD and from random
// initialisation on a planted tensor and draw the relative error against
// the sweep.
func runCPALS(ctx context.Context, o cpalsOptions, stderr io.Writer) error {
	shape, err := parseShape(o.shape)
	if err != nil {
		return err
	}
	if err := o.check(shape); err != nil {
		return err
	}
	// Beside the signals: PlantedCP and a sweep of a large tensor look at
	// no context.
	curves, err := beside(ctx, func() ([]aplot.Curve, error) { return o.trace(ctx, shape) })
	if err != nil {
		return err
	}
	p, err := aplot.Sweeps(fmt.Sprintf("CP-ALS on a planted %s rank-%d tensor, %g%% noise", o.shape, o.rank, 100*o.noise), curves)
	if err != nil {
		return dataErr(err)
	}
	return savePictureNoted(ctx, stderr, o.out, p)
}

// check checks the flags of plot cpals, and the memory the planted tensor
// and the runs need, before the tensor is built.
func (o cpalsOptions) check(shape []int) error {
	if o.rank < 1 || o.iterations < 1 || o.iterations > 500 || !(o.noise >= 0) {
		return usagef("plot cpals: want --rank ≥ 1, --iterations in [1, 500], --noise ≥ 0")
	}
	// The rank and the shape as cpd will check them, before the planted
	// tensor is built: --rank 10⁹ allocated its factors (8 GB for
	// 40x40x40) and ran out of memory before cpd refused the rank. Both
	// runs are checked: the SVD one, which bounds the rank by the
	// smallest side, and the random one.
	for _, init := range []cpd.Init{cpd.SVD, cpd.Random} {
		if err := (cpd.Config{Rank: o.rank, Init: init}).Check(shape); err != nil {
			var re *cpd.RankError
			if errors.As(err, &re) {
				re.SVDOnly = true // the plot draws the SVD run: no other init to offer
			}
			return usagef("plot cpals: --shape %s --rank %d: %v", o.shape, o.rank, err)
		}
	}
	// What PlantedCP and the two CP-ALS runs hold at their peak
	// (bench.CPALSPlotBytes): 2 to 9 copies of the tensor by its shape
	// (four were assumed, and 26 modes of side 2 at rank 2, estimated at
	// 2.15 GB, peaked at 7.29 GB).
	return planMemory("plot cpals", "lower --shape or --rank", o.maxMemory, bench.CPALSPlotBytes(shape, o.rank), nil)
}

// trace builds the planted tensor and returns the relative error after
// every sweep of the SVD and the random run.
func (o cpalsOptions) trace(ctx context.Context, shape []int) ([]aplot.Curve, error) {
	x := bench.PlantedCP(shape, o.rank, o.noise, o.seed)
	var curves []aplot.Curve
	for _, init := range []cpd.Init{cpd.SVD, cpd.Random} {
		// The previous phase's buffers (PlantedCP's noise, the
		// SVD run's workspace) are garbage: collect them, so that
		// this phase's large buffers reuse their memory. Go
		// collects after an allocation, not before: under
		// ulimit -v 4000000, 460x460x460 (estimate 1.6 GB) asked
		// the system for a new 780 MB block with 1.58 GB of
		// garbage and tensor in use, and died.
		runtime.GC()
		var src func() rand.Source
		if init == cpd.Random {
			src = func() rand.Source { return rand.NewPCG(o.seed, 4) }
		}
		errs, err := bench.CPALSTrace(ctx, x, cpd.Config{Rank: o.rank, Init: init}, src, o.iterations)
		if err != nil {
			return nil, internalErr(err)
		}
		it := make([]float64, len(errs))
		for i := range it {
			it[i] = float64(i + 1)
		}
		curves = append(curves, aplot.Curve{Name: fmt.Sprintf("%s init (%.4g after %d)", init, errs[len(errs)-1], len(errs)), X: it, Y: errs})
	}
	return curves, nil
}

// curveSet is the scores of every method on one data set of a bench run:
// for each method the first run that finished (first seed; first class
// under the class protocol).
type curveSet struct {
	data, title string
	series      []aplot.Scores
}

// benchCurves returns the curve sets of a bench run that kept its scores,
// in the order of the data sets.
func benchCurves(res *bench.Result) []curveSet {
	var order []string
	byData := map[string][]aplot.Scores{}
	class := map[string]int{}
	for _, c := range res.Cells {
		if _, seen := byData[c.Data]; !seen {
			order = append(order, c.Data)
			byData[c.Data] = nil
		}
		for _, t := range c.Trials {
			if t.Outcome.OK() && t.Outcome.Scores != nil {
				name := c.Method
				if c.Input == "flat" {
					name += " (flat)"
				}
				byData[c.Data] = append(byData[c.Data], aplot.Scores{Name: name, Scores: t.Outcome.Scores, Labels: t.Outcome.Labels})
				class[c.Data] = t.Task.Class
				break
			}
		}
	}
	var out []curveSet
	for _, d := range order {
		if len(byData[d]) == 0 {
			continue
		}
		title := d + ", first seed"
		if class[d] >= 0 {
			title += fmt.Sprintf(", normal class %d", class[d])
		}
		out = append(out, curveSet{data: d, title: title, series: byData[d]})
	}
	return out
}

// benchPlots writes ROC and PR curves per data set of a bench run, and the
// statistics' pictures when it ran with --stats. No picture may be one of
// inputs, the run's data files (DIR/x_roc.png a link to the data). A
// picture that cannot be written does not stop the others (each is
// replaced whole or left as it was); the error then counts them and
// gives the first failure, with its exit code. A signal stops it at a
// whole picture, with ctx's error.
func benchPlots(ctx context.Context, res *bench.Result, dir string, inputs []string) error {
	var (
		tried int
		fails []error
	)
	save := func(err error) {
		tried++
		if err != nil {
			fails = append(fails, err)
		}
	}
	for _, cs := range benchCurves(res) {
		for _, kind := range []string{"roc", "pr"} {
			if err := ctx.Err(); err != nil {
				return err
			}
			save(saveCurves(ctx, kind, cs.title, cs.series, filepath.Join(dir, cs.data+"_"+kind+".png"), inputs...))
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	cd, bars, err := statsPictures(res.Stats)
	if err != nil {
		save(err)
	} else if cd != nil {
		// --stats: the critical-difference diagram of AUC-ROC and the
		// average ranks of every metric as grouped bars, as Figure 3 of
		// the R1STM paper.
		save(savePictureSized(ctx, filepath.Join(dir, "cd_auc.png"), inputs, aplot.Width, aplot.CDHeight(len(res.Stats[0].Methods)), cd))
		save(savePicture(ctx, filepath.Join(dir, "ranks.png"), inputs, bars))
	}
	if len(fails) == 0 {
		return ctx.Err()
	}
	err = fmt.Errorf("--plot %s: %d of %d pictures not written; the first: %w", dir, len(fails), tried, fails[0])
	var ee *exitError
	if errors.As(fails[0], &ee) {
		return &exitError{ee.code, err}
	}
	return internalErr(err)
}

// statsPictures returns the AUC-ROC critical-difference diagram and the
// average-rank bars of the comparisons (nil, nil when AUC-ROC could not be
// compared).
func statsPictures(cmps []bench.Comparison) (cd, bars *gplot.Plot, err error) {
	if len(cmps) == 0 || cmps[0].Err != "" {
		return nil, nil, nil
	}
	auc := cmps[0]
	cd, err = aplot.CDDiagram(fmt.Sprintf("AUC-ROC: average ranks over %d data sets, Nemenyi CD at α = %g", auc.Friedman.N, bench.Alpha),
		auc.Methods, auc.Friedman.AvgRank, auc.CD)
	if err != nil {
		return nil, nil, dataErr(err)
	}
	var sets []aplot.RankSet
	for _, c := range cmps {
		if c.Err == "" && slices.Equal(c.Methods, auc.Methods) {
			sets = append(sets, aplot.RankSet{Metric: c.Metric, AvgRank: c.Friedman.AvgRank})
		}
	}
	if bars, err = aplot.RankBars("Average ranks (lower is better)", auc.Methods, sets); err != nil {
		return nil, nil, dataErr(err)
	}
	return cd, bars, nil
}

// planMemory refuses a plot whose data (base bytes), fits of d on data of
// the given sizes (one fit each) and process (bench.ProcessBytes) would
// pass the memory budget (flag, the --max-memory of the plot; by default
// 75% of the machine's, the container's or the address-space limit),
// before anything is allocated. lower says which flags to lower (the
// message named none: "make it smaller").
func planMemory(what, lower, flag string, base float64, d detector.Detector, sizes ...kit.Size) error {
	budget, source, err := memoryBudget(flag)
	if err != nil {
		return err
	}
	need := base + bench.ProcessBytes
	for _, s := range sizes {
		est, err := kit.Memory(d, kit.FitOp, s)
		if err != nil {
			return internalErr(err)
		}
		need += float64(est)
	}
	if need > float64(budget) {
		return usagef("%s needs about %s, over the memory budget of %s (%s): %s, or raise --max-memory", what, dataset.FormatBytes(int64(min(need, math.MaxInt64))), dataset.FormatBytes(budget), source, lower)
	}
	return nil
}

// countAnomalies returns the rows labelled 1 and the labelled rows (0 or 1).
func countAnomalies(y []int) (anomalies, labelled int) {
	for _, v := range y {
		if v == 0 || v == 1 {
			labelled++
			anomalies += v
		}
	}
	return anomalies, labelled
}
