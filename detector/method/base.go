package method

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/internal/kit"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/param"
	"github.com/kernelad/anomaly/scale"
)

// Model is a method's fitted state: what its fit builds and what scores
// rows. Base holds the model of the last successful fit and replaces it
// only when a fit succeeds; a model is never changed once a fit has
// returned it, so Score may read it while another fit runs.
type Model interface {
	// Score writes the scores of the rows of X into dst (len(dst) is the
	// number of rows; higher = more anomalous). The rows have been
	// through the fitted scale stage and checked: finite, as many
	// columns as the fit's. It returns ctx.Err() soon after ctx ends,
	// checking it between blocks of work.
	Score(ctx context.Context, dst []float64, X mat.Matrix) error
	// MarshalBinary encodes the model for a model file (EncodeState).
	MarshalBinary() ([]byte, error)
}

// Hooks are the functions a method gives its Base.
type Hooks[M Model] struct {
	// Fit fits a model on the training rows of f and returns it with
	// the scores of the training rows (all of them in order, or of a
	// sample of them), from which Base sets the threshold. It must not
	// change the detector: Base installs the model when the whole fit has
	// succeeded.
	Fit func(ctx context.Context, f *Fitting) (M, []float64, error)
	// Decode rebuilds a model from the bytes of its MarshalBinary, for
	// Load: dim is the column count of the model file's shared state.
	// The bytes are input: every size and value is checked (sizes
	// against the bytes present, without overflow) before it is used.
	Decode func(data []byte, dim int) (M, error)
	// StageSample, when set, returns the number of rows the scale stage
	// is fitted on, a uniform sample drawn with rng (0: every row), so
	// that a fit that reads few rows (EXPoSE's SGD) does not pass over
	// all of them; Fitting.StageSample hands the sample to the fit.
	StageSample func() (rows int, rng *rand.Rand)
	// Settle says the training scores come from another computation than
	// Score (a solver's gradient over a float32 kernel cache, an
	// eigendecomposition): the training rows whose scores lie within
	// 10⁻⁶ of the scores' scale from the threshold are scored again by
	// the model's Score and the threshold is set from those scores, so
	// that scoring the training rows flags the rows the fit flagged.
	// Without it, rows tied at the threshold (duplicates, constant data)
	// differed from their training scores by rounding of either sign,
	// and all of them could be flagged: 60 of 60 rows (59 identical)
	// with ocsvm, svdd and kpca, where the fit flagged one.
	Settle bool
	// Densify says the method works on dense rows: sparse input is then
	// densified a chunk at a time (in one pass over its non-zeros) before
	// the scale stage, which centres it as it does dense rows, so that a
	// sparse matrix and a dense copy of it give the same model and the
	// same scores, bit for bit. A method that keeps sparse rows sparse
	// (a kernel evaluated on their non-zeros) leaves it unset: the stage
	// then scales them without centring.
	Densify bool
}

// Base is embedded by every detector. It owns what all methods share, so
// that a method only fits models and scores rows: the resolved parameters
// (saved with the model), input checks, the scale stage in front of the
// method, the threshold set from the training scores and the
// contamination rate (as PyOD's BaseDetector), cancellation, progress and
// persistence.
//
// A fit is a transaction. The method builds a new Model aside, and Base
// publishes it, with its scale stage and threshold, only when the whole
// fit has succeeded: a fit that fails for any reason (bad data, a
// cancelled context, a numerical failure) leaves the detector exactly as
// it was, and Score, which reads the published model, never sees a fit
// in progress. Fits of one detector run one at a time.
type Base[M Model] struct {
	s *state[M] // shared by copies of the Base value NewBase returns
}

// state is a Base's configuration and its published model.
type state[M Model] struct {
	method    string
	params    map[string]string
	defaulted map[string]bool
	common    Common
	shape     func() []int // the sample shape, for scale=channel (tensor methods)
	minRows   int
	hooks     Hooks[M]

	fitMu sync.Mutex                // one fit at a time
	cur   atomic.Pointer[fitted[M]] // the published model, nil before the first fit
}

// fitted is a published model and everything Base keeps with it.
type fitted[M Model] struct {
	model     M
	dim       int
	stage     *scale.Stage
	threshold float64
	warning   string
	columns   []string // the fitted columns' names (SetColumns), or nil
	rows      int      // the training rows the model was fitted on
}

// NewBase resolves cfg as a method's New must: every unset field takes
// its declared default and every set one is checked against its declared
// range (the resolved values are written into cfg and recorded for
// Save). hooks.Fit and hooks.Decode must be set.
func NewBase[M Model](method string, cfg Config, hooks Hooks[M]) (Base[M], error) {
	if hooks.Fit == nil || hooks.Decode == nil {
		panic("method: NewBase needs Hooks.Fit and Hooks.Decode")
	}
	s := bindAll(method, cfg)
	if err := s.Resolve(); err != nil {
		return Base[M]{}, err
	}
	st := &state[M]{method: method, params: s.Values(), defaulted: s.Defaulted(), common: *cfg.Shared(), hooks: hooks}
	if sh, ok := cfg.(interface{ SampleShape() []int }); ok {
		st.shape = sh.SampleShape
	} else if st.common.Scale == scale.ChannelRule {
		// On vector rows channel is standard, column by column: asked
		// of a vector method on tensor data (flattened), it silently
		// standardised each entry instead of each channel.
		return Base[M]{}, &param.Error{Method: method, Name: "scale", Value: st.common.Scale,
			Reason: "channel standardises per index of a tensor sample's first mode, and " + method + " reads vector rows (a tensor file is flattened for it): use scale=standard, which is what channel is on vector rows, or a tensor method (1stm, r1stm)"}
	}
	if e, ok := kit.Lookup(method); ok {
		st.minRows = e.MinRows
	}
	return Base[M]{s: st}, nil
}

// Init sets *base, d's embedded Base, to NewBase(method, cfg, hooks) and
// returns d, or the zero D and NewBase's error: a method's New is then
//
//	g := &Gauss{cfg: cfg}
//	return method.Init(g, &g.Base, "gauss", &g.cfg, method.Hooks[*model]{Fit: g.fit, Decode: g.decode, Densify: true})
func Init[D any, M Model](d D, base *Base[M], method string, cfg Config, hooks Hooks[M]) (D, error) {
	b, err := NewBase(method, cfg, hooks)
	if err != nil {
		var zero D
		return zero, err
	}
	*base = b
	return d, nil
}

// Method returns the registered name of the detector's method.
func (b *Base[M]) Method() string { return b.s.method }

// Params returns the resolved parameters the detector was built with, as
// key=value text (a copy).
func (b *Base[M]) Params() map[string]string {
	m := make(map[string]string, len(b.s.params))
	for k, v := range b.s.params {
		m[k] = v
	}
	return m
}

// Describe returns the method's name and resolved parameters (a copy).
func (b *Base[M]) Describe() (method string, params map[string]string) {
	return b.s.method, b.Params()
}

// Defaulted reports whether the named parameter was left unset and took
// its declared default (as opposed to being given, even with the
// default's value). A method may adapt a default to the data (kpca caps
// its default component count at n − 1) where a given value out of range
// is an error.
func (b *Base[M]) Defaulted(name string) bool { return b.s.defaulted[name] }

// Model returns the published model and true, or the zero M and false
// before the first successful fit.
func (b *Base[M]) Model() (M, bool) {
	if f := b.s.cur.Load(); f != nil {
		return f.model, true
	}
	var zero M
	return zero, false
}

// Fitted reports whether the detector has been fitted (or loaded).
func (b *Base[M]) Fitted() bool { return b.s.cur.Load() != nil }

// Threshold returns the score above which a row is an anomaly, set by
// Fit; NaN before the first fit (no row is above it).
func (b *Base[M]) Threshold() float64 {
	if f := b.s.cur.Load(); f != nil {
		return f.threshold
	}
	return math.NaN()
}

// Dim returns the number of columns the detector was fitted on (0 before
// Fit).
func (b *Base[M]) Dim() int {
	if f := b.s.cur.Load(); f != nil {
		return f.dim
	}
	return 0
}

// Stage returns the fitted scale stage (nil before Fit).
func (b *Base[M]) Stage() *scale.Stage {
	if f := b.s.cur.Load(); f != nil {
		return f.stage
	}
	return nil
}

// Warning describes a fit whose model is degenerate, "" otherwise.
func (b *Base[M]) Warning() string {
	if f := b.s.cur.Load(); f != nil {
		return f.warning
	}
	return ""
}

// Columns returns the names of the fitted columns (a copy), or nil.
func (b *Base[M]) Columns() []string {
	if f := b.s.cur.Load(); f != nil {
		return slices.Clone(f.columns)
	}
	return nil
}

// SetColumns records the names of the fitted columns, one per column (nil
// forgets them); detector.SetColumns checks and cleans them first.
func (b *Base[M]) SetColumns(names []string) error {
	b.s.fitMu.Lock()
	defer b.s.fitMu.Unlock()
	cur := b.s.cur.Load()
	if cur == nil {
		return detector.ErrNotFitted
	}
	if names != nil && len(names) != cur.dim {
		return fmt.Errorf("%s: %d column names for a model of %d columns", b.s.method, len(names), cur.dim)
	}
	next := *cur
	next.columns = slices.Clone(names)
	b.s.cur.Store(&next)
	return nil
}

// Fit fits the method on the rows of X (n samples × d features: a dense
// matrix, a view, or a james-bowman/sparse matrix) and sets the threshold
// from the training scores.
func (b *Base[M]) Fit(ctx context.Context, X mat.Matrix) error {
	return b.fitMatrix(ctx, X, nil, func(ctx context.Context, f *Fitting, _ []int) (M, []float64, error) {
		return b.s.hooks.Fit(ctx, f)
	})
}

// FitLabeledWith is Fit for a semi-supervised method: y (one label per
// row of X) is passed through to fit, with the rows of a sample when the
// fit draws one.
func (b *Base[M]) FitLabeledWith(ctx context.Context, X mat.Matrix, y []int, fit func(ctx context.Context, f *Fitting, y []int) (M, []float64, error)) error {
	if n, _ := X.Dims(); len(y) != n {
		return fmt.Errorf("%s: %d labels for %d rows", b.s.method, len(y), n)
	}
	return b.fitMatrix(ctx, X, y, fit)
}

// FitSource fits the method on the rows of src, reading them as the
// method needs them: every row, a pass at a time, or a sample (see
// Fitting). Its result equals Fit's on the same rows in one matrix.
func (b *Base[M]) FitSource(ctx context.Context, src detector.Source) error {
	b.s.fitMu.Lock()
	defer b.s.fitMu.Unlock()
	if _, c := src.Dims(); c == 0 {
		return fmt.Errorf("%s: %w", b.s.method, &detector.EmptyError{Rows: 0, Cols: 0})
	}
	return b.fitLocked(ctx, src, nil, nil, func(ctx context.Context, f *Fitting, _ []int) (M, []float64, error) {
		return b.s.hooks.Fit(ctx, f)
	})
}

// fitMatrix checks X and fits on it.
func (b *Base[M]) fitMatrix(ctx context.Context, X mat.Matrix, y []int, fit func(ctx context.Context, f *Fitting, y []int) (M, []float64, error)) error {
	X = csr.Input(X) // any james-bowman/sparse format, rows sorted
	if err := CheckMatrix(X, 0); err != nil {
		return fmt.Errorf("%s: %w", b.s.method, err)
	}
	b.s.fitMu.Lock()
	defer b.s.fitMu.Unlock()
	return b.fitLocked(ctx, matrixSource{X}, X, y, fit)
}

// fitLocked runs one fit: the sample, the scale stage, the method, the
// threshold; it publishes the model only when all of them succeed.
func (b *Base[M]) fitLocked(ctx context.Context, src detector.Source, mem mat.Matrix, y []int, fit func(ctx context.Context, f *Fitting, y []int) (M, []float64, error)) error {
	s := b.s
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", s.method, err)
	}
	f := &Fitting{method: s.method, src: src, mem: mem, progress: s.common.Progress, densify: s.hooks.Densify}
	f.rows, f.cols = src.Dims()
	if err := b.checkRows(f); err != nil {
		return err
	}
	if k := s.common.Sample; k > 0 && (f.rows < 0 || k < f.rows) {
		X, idx, err := drawSample(ctx, f, k, s.common.sampleRand())
		if err != nil {
			return f.ctxErr(ctx, err)
		}
		if y != nil {
			ys := make([]int, len(idx))
			for i, r := range idx {
				ys[i] = y[r]
			}
			y = ys
		}
		f.src, f.mem = matrixSource{X}, X
		f.rows, _ = X.Dims()
	}
	if err := b.fitStage(ctx, f); err != nil {
		return f.ctxErr(ctx, err)
	}
	if err := b.checkRows(f); err != nil {
		return err
	}
	model, train, err := fit(ctx, f, y)
	if err == nil {
		train, err = b.settleTies(ctx, f, model, train)
	}
	if err == nil {
		err = ctx.Err() // a method that returned on its own as ctx ended
	}
	if err != nil {
		return f.ctxErr(ctx, err)
	}
	next, err := b.finish(f, model, train)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil { // ended during the threshold's sort
		return f.ctxErr(ctx, err)
	}
	s.cur.Store(next)
	return nil
}

// checkRows refuses a fit of fewer rows than the method needs (when the
// row count is known).
func (b *Base[M]) checkRows(f *Fitting) error {
	if f.rows >= 0 && f.rows < max(b.s.minRows, 1) {
		return fmt.Errorf("%s: %w", b.s.method, &detector.EmptyError{Rows: f.rows, Cols: f.cols, MinRows: b.s.minRows})
	}
	return nil
}

// fitStage fits the scale stage on the rows of f: on every row (one
// pass, or the matrix in memory), or on the sample the method asked for
// (Hooks.StageSample). A source whose row count is unknown is counted by
// the stage's passes, or by a pass of its own under rule none.
func (b *Base[M]) fitStage(ctx context.Context, f *Fitting) error {
	s := b.s
	var shape []int
	if s.shape != nil {
		shape = s.shape()
	}
	if s.hooks.StageSample != nil {
		if k, rng := s.hooks.StageSample(); k > 0 && (f.rows < 0 || k < f.rows) {
			X, idx, err := drawSample(ctx, f, k, rng)
			if err != nil {
				return err
			}
			if f.stage, err = scale.FitShape(s.common.Scale, X, shape); err != nil {
				return fmt.Errorf("%s: %w", s.method, err)
			}
			if f.stageX, err = f.stage.Apply(X); err != nil {
				return fmt.Errorf("%s: %w", s.method, err)
			}
			f.stageIdx = idx
			return nil
		}
	}
	var err error
	if f.mem != nil && (!f.densify || !f.src.Sparse()) {
		f.stage, err = fitStageMatrix(ctx, s.common.Scale, f.mem, shape)
	} else if s.common.Scale == scale.None {
		f.stage = &scale.Stage{Rule: scale.None}
		if f.rows < 0 {
			f.rows = 0
			err = f.scanRaw(ctx, ChunkRows(f.cols), func(_ int, X mat.Matrix) error {
				r, _ := X.Dims()
				f.rows += r
				return nil
			})
		}
	} else {
		f.stage, err = b.fitStageSource(ctx, f, shape)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", s.method, err)
	}
	return nil
}

// fitStageMatrix fits the stage on the rows of a matrix in memory. Rule
// robust sorts whole columns (scale.FitShape); the other rules read the
// matrix as passes of ChunkRows rows (scale.FitRows, the same
// stage bit for bit) with ctx checked between chunks, so that a fit
// cancelled in its scale stage returns within a chunk's work.
func fitStageMatrix(ctx context.Context, rule string, X mat.Matrix, shape []int) (*scale.Stage, error) {
	if rule == scale.RobustRule || rule == scale.None {
		return scale.FitShape(rule, X, shape)
	}
	n, c := X.Dims()
	_, sp := csr.Input(X).(*sparse.CSR)
	step := ChunkRows(c)
	rows := scale.Rows{Cols: c, Sparse: sp, Pass: func(fn func(X mat.Matrix) error) error {
		for lo := 0; lo < n; lo += step {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(csr.Rows(X, lo, min(n, lo+step))); err != nil {
				return err
			}
		}
		return nil
	}}
	return scale.FitRows(rule, rows, shape)
}

// robustSourceRows is the size of the sample rule robust is fitted on
// when the rows come from a source: its quantiles need every value of a
// column in memory, which for a file larger than memory they cannot be.
// Quartiles of 100,000 rows lie within about 0.005 standard deviations
// of the data's (the standard error of a quartile, 1.36σ/√n).
const robustSourceRows = 100000

// fitStageSource fits the stage on a source, reading it in passes (rule
// robust on a sample), and counts its rows.
func (b *Base[M]) fitStageSource(ctx context.Context, f *Fitting, shape []int) (*scale.Stage, error) {
	s := b.s
	if s.common.Scale == scale.RobustRule {
		X, _, err := drawSample(ctx, f, robustSourceRows, s.common.sampleRand())
		if err != nil {
			return nil, err
		}
		return scale.FitShape(s.common.Scale, X, shape)
	}
	total := f.rows
	rows := scale.Rows{Cols: f.cols, Sparse: f.Sparse(), Pass: func(fn func(X mat.Matrix) error) error {
		n, pass := 0, 0
		err := f.scanRaw(ctx, ChunkRows(f.cols), func(_ int, X mat.Matrix) error {
			r, _ := X.Dims()
			n += r
			if pass++; pass%16 == 0 {
				f.Report("scale", n, total)
			}
			return fn(X)
		})
		if err == nil {
			f.rows = n
			f.Report("scale", n, n)
		}
		return err
	}}
	return scale.FitRows(s.common.Scale, rows, shape)
}

// drawSample draws k rows of f's source uniformly without replacement
// with rng: by index when the row count is known (the rows in memory, a
// RowReader, or one pass over a source), else by a reservoir in one pass
// that also counts the rows. It returns the rows, unscaled, in their
// order in the data, and their indices; every row when there are at most
// k.
func drawSample(ctx context.Context, f *Fitting, k int, rng *rand.Rand) (mat.Matrix, []int, error) {
	if f.rows >= 0 {
		idx := SampleIndices(rng, f.rows, k)
		f.Report("sample", 0, len(idx))
		X, err := f.readRows(ctx, idx)
		if err != nil {
			return nil, nil, err
		}
		f.Report("sample", len(idx), len(idx))
		return X, idx, nil
	}
	res := newReservoir(k, f.cols, f.Sparse(), rng)
	err := f.scanRaw(ctx, ChunkRows(f.cols), func(lo int, X mat.Matrix) error {
		res.add(lo, X)
		f.Report("sample", res.seen, -1)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	f.rows = res.seen
	if res.seen == 0 {
		return nil, nil, fmt.Errorf("%s: %w", f.method, &detector.EmptyError{Rows: 0, Cols: f.cols})
	}
	X, idx := res.rows()
	return X, idx, nil
}

// settleTies returns the training scores the threshold is set from: when
// the method asked for it (Hooks.Settle), those of the training rows near
// the threshold (within nearTie of the scores' scale) are replaced by what
// the model's Score gives them. Rescoring only those rows keeps the cost
// to the ties: every row of tied data, a handful of ordinary data
// (rescoring every row added 16–25% to kpca's and svdd's fits).
func (b *Base[M]) settleTies(ctx context.Context, f *Fitting, model M, train []float64) ([]float64, error) {
	if !b.s.hooks.Settle || len(train) != f.rows || hasNaN(train) || !(b.s.common.Contamination > 0) {
		return train, nil // finish reports NaN scores
	}
	thr := ThresholdFromScores(train, b.s.common.Contamination)
	var scale float64
	for _, v := range train {
		if !math.IsInf(v, 0) {
			scale = math.Max(scale, math.Abs(v))
		}
	}
	tol := nearTie * math.Max(scale, math.Abs(thr))
	var near []int
	for i, v := range train {
		if math.Abs(v-thr) <= tol {
			near = append(near, i)
		}
	}
	if len(near) == 0 {
		return train, nil
	}
	X, err := f.Rows(ctx, near)
	if err != nil {
		return nil, err
	}
	s := make([]float64, len(near))
	if err := model.Score(ctx, s, X); err != nil {
		return nil, err
	}
	out := slices.Clone(train)
	for k, i := range near {
		out[i] = s[k]
	}
	return out, nil
}

// nearTie is the relative distance from the threshold within which a
// training score is rescored (Hooks.Settle): 10⁻⁶ of the scores' scale,
// above what float32 kernel caches (relative error 6·10⁻⁸ an entry) and
// eigendecompositions leave in a training score, so that a row outside
// it is on the same side of the threshold by either computation.
const nearTie = 1e-6

func hasNaN(v []float64) bool { return slices.ContainsFunc(v, math.IsNaN) }

// finish builds the published state of a fit from its model and training
// scores: the threshold and the warning.
func (b *Base[M]) finish(f *Fitting, model M, train []float64) (*fitted[M], error) {
	s := b.s
	if err := nanRows(s.method, train, true); err != nil {
		return nil, err
	}
	if len(train) == 0 {
		return nil, fmt.Errorf("%s: the method returned no training scores", s.method)
	}
	threshold, warning := thresholdAndWarning(s.method, s.common.Contamination, f.caution, train, f.rows, b.tieCause)
	return &fitted[M]{model: model, dim: f.cols, stage: f.stage, threshold: threshold, warning: warning, rows: f.rows}, nil
}

// tieCause completes the tied-scores warnings: the second cause they name
// and what they advise. A method with a width (gamma or bandwidth) may
// have one that does not suit the data; iforest and gauss have none to
// choose.
func (b *Base[M]) tieCause() (cause, hint string) {
	_, gamma := b.s.params["gamma"]
	_, bw := b.s.params["bandwidth"]
	if !gamma && !bw {
		return "", "check the data for copies of one row and constant columns"
	}
	cause = ", or the kernel width or bandwidth does not suit the scale of the data"
	if b.s.common.Scale == scale.None {
		return cause, "set scale=standard, or choose the width"
	}
	return cause, "choose another width or bandwidth, or leave it to its rule"
}

// PartialFitWith folds more rows into a model, for a method that updates
// a fitted model from a stream (a PartialFit method): fit receives the
// published model (and fitted = false before the first fit) and returns
// the updated one with the scores of the rows of X, from which the
// threshold is re-estimated. On an unfitted detector the scale stage is
// fitted on X; afterwards the stage the model has is applied (it is
// learned from the first batch and then kept, so the model's coordinates
// do not drift). As a fit, it changes nothing unless it succeeds.
func (b *Base[M]) PartialFitWith(ctx context.Context, X mat.Matrix, fit func(ctx context.Context, f *Fitting, prev M, fitted bool) (M, []float64, error)) error {
	s := b.s
	X = csr.Input(X)
	s.fitMu.Lock()
	defer s.fitMu.Unlock()
	prev := s.cur.Load()
	if prev == nil {
		if err := CheckMatrix(X, 0); err != nil {
			return fmt.Errorf("%s: %w", s.method, err)
		}
		var zero M
		return b.fitLocked(ctx, matrixSource{X}, X, nil, func(ctx context.Context, f *Fitting, _ []int) (M, []float64, error) {
			return fit(ctx, f, zero, false)
		})
	}
	if err := CheckMatrix(X, prev.dim); err != nil { // a later batch may be a single row
		return fmt.Errorf("%s: %w", s.method, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", s.method, err)
	}
	f := &Fitting{method: s.method, src: matrixSource{X}, mem: X, stage: prev.stage, progress: s.common.Progress, densify: s.hooks.Densify}
	f.rows, f.cols = X.Dims()
	model, scores, err := fit(ctx, f, prev.model, true)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return f.ctxErr(ctx, err)
	}
	next, err := b.finish(f, model, scores)
	if err != nil {
		return err
	}
	next.columns = prev.columns
	s.cur.Store(next)
	return nil
}

// Score writes the scores of the rows of X into dst (reused when its
// capacity is at least the number of rows) and returns the slice written;
// higher means more anomalous.
func (b *Base[M]) Score(dst []float64, X mat.Matrix) ([]float64, error) {
	return b.ScoreContext(context.Background(), dst, X)
}

// ScoreContext is Score that returns ctx.Err() (named by the method) soon
// after ctx ends.
func (b *Base[M]) ScoreContext(ctx context.Context, dst []float64, X mat.Matrix) ([]float64, error) {
	cur := b.s.cur.Load()
	if cur == nil {
		return nil, detector.ErrNotFitted
	}
	return b.score(ctx, cur, dst, X)
}

// PredictContext scores X and labels each row against the threshold of
// the same model (1 = anomaly), as detector.Predict does, even while
// another fit replaces the model.
func (b *Base[M]) PredictContext(ctx context.Context, dst []int, X mat.Matrix) ([]int, error) {
	cur := b.s.cur.Load()
	if cur == nil {
		return nil, detector.ErrNotFitted
	}
	scores, err := b.score(ctx, cur, nil, X)
	if err != nil {
		return nil, err
	}
	return Label(dst, scores, cur.threshold), nil
}

// score scores X with the published state cur: the rows are checked,
// then scaled and scored a chunk at a time (ChunkRows), so that
// scoring holds the scaled copy of a chunk, never of all of X. A panic of
// the method's Score (a defect, or a model file whose sizes its Decode
// did not check) is returned as an error, not a crash of the process.
func (b *Base[M]) score(ctx context.Context, cur *fitted[M], dst []float64, X mat.Matrix) (_ []float64, err error) {
	defer recoverAs(b.s.method, "scoring", &err)
	X = csr.Input(X) // any james-bowman/sparse format, rows sorted
	method := b.s.method
	if err := CheckMatrix(X, cur.dim); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	n, cols := X.Dims()
	dst = ScoreDst(dst, n)
	sp, _ := X.(*sparse.CSR)
	densify := sp != nil && b.s.hooks.Densify
	// Always these chunks, as detector.ScoreSource reads a source: a
	// method whose scores depend on how many rows one call scores (a
	// BLAS product blocks by the matrix's size) then scores a file
	// streamed from disk as it scores the same rows in memory, bit for
	// bit.
	chunk := ChunkRows(cols)
	var bufs chunkBufs
	for lo := 0; lo < n; lo += chunk {
		hi := min(n, lo+chunk)
		Xs, err := b.prepare(cur, &bufs, csr.Rows(X, lo, hi), densify, false)
		if err == nil {
			err = cur.model.Score(ctx, dst[lo:hi], Xs)
		}
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("%s: %w", method, ctx.Err())
			}
			return nil, offsetRows(fmt.Errorf("%s: %w", method, err), lo)
		}
	}
	if err := nanRows(method, dst, false); err != nil {
		return nil, err
	}
	return dst, nil
}

// chunkBufs holds a chunk's way to the method's Score: its rows
// densified (a CSR chunk of a method that densifies) and scaled.
type chunkBufs struct{ dense, scaled mat.Dense }

// prepare returns the rows of a chunk as the method's Score takes them:
// densified when densify is set (a CSR chunk of a method that densifies),
// then through the scale stage, in bufs' storage. With own set the
// result never shares storage with rows (a source's chunk is valid only
// during its callback): rows the stage passes through (rule none) are
// copied into bufs.
func (b *Base[M]) prepare(cur *fitted[M], bufs *chunkBufs, rows mat.Matrix, densify, own bool) (mat.Matrix, error) {
	if densify {
		rows = densifyInto(&bufs.dense, rows.(*sparse.CSR))
		own = false
	}
	Xs, err := cur.stage.ApplyInto(&bufs.scaled, rows)
	if err != nil || !own || cur.stage.Rule != scale.None {
		return Xs, err
	}
	if sp, ok := Xs.(*sparse.CSR); ok {
		return copyMatrix(sp), nil
	}
	r, c := Xs.Dims()
	resize(&bufs.scaled, r, c)
	bufs.scaled.Copy(Xs)
	return &bufs.scaled, nil
}

// recoverAs turns a panic of the goroutine into *err (deferred): an
// internal error of the method, with what it was doing.
func recoverAs(method, doing string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%s: internal error while %s: %v (please report it, with the model file)", method, doing, r)
	}
}

// nanRows returns a *detector.ScoreError for the NaN values of scores,
// or nil.
func nanRows(method string, scores []float64, training bool) error {
	bad := detector.ScoreError{Method: method, Training: training}
	for i, v := range scores {
		if math.IsNaN(v) {
			if bad.Count < 5 {
				bad.Rows = append(bad.Rows, i)
			}
			bad.Count++
		}
	}
	if bad.Count == 0 {
		return nil
	}
	return &bad
}

// Adopt publishes a model computed outside this process (package beam's
// distributed fit): stage is the scale stage the rows were scaled with
// (nil means rule none), dim the column count and threshold the decision
// threshold.
func (b *Base[M]) Adopt(model M, stage *scale.Stage, dim int, threshold float64) error {
	s := b.s
	if stage == nil {
		stage = &scale.Stage{Rule: scale.None}
	}
	if stage.Rule != s.common.Scale {
		return fmt.Errorf("%s: scale stage %q differs from the configuration's %q", s.method, stage.Rule, s.common.Scale)
	}
	cols := dim
	if stage.Rule == scale.None {
		cols = -1
	}
	if dim < 1 || math.IsNaN(threshold) || math.IsInf(threshold, 0) {
		return fmt.Errorf("%s: invalid column count %d or threshold %v", s.method, dim, threshold)
	}
	if err := stage.Check(cols); err != nil {
		return fmt.Errorf("%s: %w", s.method, err)
	}
	s.fitMu.Lock()
	defer s.fitMu.Unlock()
	s.cur.Store(&fitted[M]{model: model, dim: dim, stage: stage, threshold: threshold})
	return nil
}

// matrixSource is a matrix in memory as a Source and a RowReader: Fit's
// rows, or a sample drawn from a file.
type matrixSource struct{ X mat.Matrix }

func (m matrixSource) Dims() (int, int) { return m.X.Dims() }

func (m matrixSource) Sparse() bool {
	_, ok := m.X.(*sparse.CSR)
	return ok
}

func (m matrixSource) Scan(ctx context.Context, max int, fn func(lo int, X mat.Matrix) error) error {
	return scanMatrix(ctx, m.X, max, fn)
}

func (m matrixSource) ReadRows(_ context.Context, idx []int) (mat.Matrix, error) {
	return gather(m.X, idx), nil
}
