package detector

import (
	"context"
	"fmt"
	"math"

	"github.com/james-bowman/sparse"
	"github.com/kernelad/anomaly/internal/csr"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/param"
	"github.com/kernelad/anomaly/scale"
)

// DefaultScale is the scale stage's rule when a configuration leaves
// Common.Scale empty and the method registered no default of its own
// (Info.Scale): standardise each feature on the training rows. Chosen
// by make defaults (the selection protocol in the README): with it every
// kernel method's width rule sees features in comparable units, and the
// mean AUC over the 15 ADBench sets rose by 0.06–0.09 for kde, expose,
// ocsvm, svdd and kpca over no scaling; robust (median, IQR) and minmax
// ranked below it for every method.
const DefaultScale = scale.Standardize

// Common is the part of the configuration every method shares; each
// method's Config embeds it. Its zero value means the defaults.
type Common struct {
	// Contamination is the expected share of anomalies in the training
	// data, in (0, 0.5]: the threshold flags that share of the training
	// rows. 0 means DefaultContamination.
	Contamination float64
	// Scale is the rule of the scale stage fitted on the training rows in
	// front of the method and applied to every matrix it scores: standard
	// (mean and standard deviation), robust (median and IQR), minmax or
	// none; "" means the method's default (Info.Scale, else DefaultScale).
	// A constant column is centred and left unscaled; sparse input is
	// scaled without centring, so it stays sparse.
	Scale string
	// Progress, when set, receives progress reports from long fits. It is
	// called from the fitting goroutine and must return quickly.
	Progress ProgressFunc
}

// Shared returns c; through embedding it gives the registry and NewBase
// the shared part of any method's configuration.
func (c *Common) Shared() *Common { return c }

// bind declares the shared parameters; scaleDefault is the method's
// default scale rule ("" means DefaultScale).
func (c *Common) bind(s *param.Set, scaleDefault string, tensor bool) {
	if scaleDefault == "" {
		scaleDefault = DefaultScale
	}
	help := "scale stage fitted on the training rows in front of the method: standard (mean, std), robust (median, IQR), minmax, channel (mean, std per index of a tensor sample's first mode) or none"
	if !tensor {
		// NewBase refuses channel for a method of vector rows.
		help = "scale stage fitted on the training rows in front of the method: standard (mean, std), robust (median, IQR), minmax or none (channel is for the tensor methods)"
	}
	s.Float(&c.Contamination, "contamination", DefaultContamination, param.Interval(0, 0.5, true, false),
		"expected share of anomalies in the training data; the threshold flags that share of the training rows")
	s.Choice(&c.Scale, "scale", scaleDefault, scale.Rules, nil, help)
}

// Config is what a method's configuration type provides: Bind declares
// its own parameters (name, field, default, range, help) once, and Shared
// comes from an embedded Common.
type Config interface {
	Bind(s *param.Set)
	Shared() *Common
}

// bindAll declares every parameter of cfg: the method's own, then the
// shared ones, with the registered method's default scale rule.
func bindAll(method string, cfg Config) *param.Set {
	var scaleDefault string
	if m, ok := Lookup(method); ok {
		scaleDefault = m.Info.Scale
	}
	return bindWith(method, scaleDefault, cfg)
}

// bindWith is bindAll with the default scale rule given (Register binds
// before the method is in the registry).
func bindWith(method, scaleDefault string, cfg Config) *param.Set {
	s := param.NewSet(method)
	cfg.Bind(s)
	_, tensor := cfg.(interface{ SampleShape() []int })
	cfg.Shared().bind(s, scaleDefault, tensor)
	return s
}

// Base is embedded by every detector. It owns what all methods share, so
// that a method only computes scores: the resolved parameters it was built
// with (saved with the model), the scale stage in front of the method,
// input checks, the threshold set from the training scores and the
// contamination rate (as PyOD's BaseDetector), and persistence of all
// that. A method's Fit, Score and FitLabeled call FitWith, ScoreWith and
// FitLabeledWith with the method's own scoring function.
type Base struct {
	method    string
	params    map[string]string
	defaulted map[string]bool
	cont      float64
	rule      string
	shape     func() []int // the sample shape, for scale=channel (tensor methods)
	progress  ProgressFunc
	minRows   int // Info.MinRows of the method

	fitted    bool
	dim       int
	stage     *scale.Stage
	threshold float64
	warning   string
	columns   []string // the names of the fitted columns, or nil (SetColumns)

	tieScore ScoreFunc // SettleTiesWith
	caution  string    // Caution, during a fit
}

// Caution is for a method's fit: msg describes a degenerate model the
// training scores need not show (a kernel width at which every row
// resembles only itself, a solver stopped at its iteration limit), and
// becomes the fit's Warning, before the shared ones. The first caution of
// a fit is kept.
func (b *Base) Caution(msg string) {
	if b.caution == "" {
		b.caution = msg
	}
}

// CautionIterationLimit cautions (Caution) that the method's solver
// stopped at its limit, after count steps of the kind unit ("iterations",
// "passes"), before it met its tolerance: the model is not the solution
// (LIBSVM's svm-train warns likewise). what names the limit's parameter.
func (b *Base) CautionIterationLimit(count int, unit, what string) {
	b.Caution(fmt.Sprintf("%s: the solver stopped at its limit of %d %s before it met its tolerance: the model is not converged and its scores are those of a partial solution (raise %s)", b.method, count, unit, what))
}

// CautionIsolating cautions (Caution) when the rbf or laplacian kernel of
// kind at width gamma isolates the rows of X (kernel.Isolating).
func (b *Base) CautionIsolating(kind string, X mat.Matrix, gamma float64) {
	if iso, t := kernel.Isolating(kind, X, gamma); iso {
		b.Caution(fmt.Sprintf("%s: at gamma %v most training rows have no other row with a kernel value above float64's precision (the median over rows of γ‖x−y‖² to the nearest other row, or γ‖x−y‖₁ for laplacian, is about %.3g, above ln 2⁵² ≈ 36): each row resembles only itself, so the model scores alike every row it has not seen (lower gamma, or leave it to its rule)", b.method, gamma, t))
	}
}

// SettleTiesWith is for a method whose training scores come from another
// computation than Score (a solver's gradient over a float32 kernel
// cache, an eigendecomposition): score scores scaled rows as Score does,
// and after each fit the training rows are scored again by it and the
// threshold is set from those scores, so that scoring the training rows
// flags the rows the fit flagged. Without it, rows tied or nearly tied at
// the threshold (duplicates, constant data, a width at which every kernel
// value is 1) differed from their training scores by rounding of either
// sign, and all of them could be flagged: 60 of 60 rows (59 identical)
// with ocsvm, svdd and kpca, where the fit flagged one. It costs one Score
// of the training rows.
func (b *Base) SettleTiesWith(score ScoreFunc) { b.tieScore = score }

// NewBase resolves cfg as New of the named method must: every unset field
// takes its declared default and every set one is checked against its
// declared range. The resolved parameters are recorded for Save.
func NewBase(method string, cfg Config) (Base, error) {
	s := bindAll(method, cfg)
	if err := s.Resolve(); err != nil {
		return Base{}, err
	}
	c := cfg.Shared()
	b := Base{method: method, params: s.Values(), defaulted: s.Defaulted(), cont: c.Contamination, rule: c.Scale, progress: c.Progress}
	if sh, ok := cfg.(interface{ SampleShape() []int }); ok {
		b.shape = sh.SampleShape
	} else if b.rule == scale.ChannelRule {
		// On vector rows channel is standard, column by column: asked
		// of a vector method on tensor data (flattened), it silently
		// standardised each entry instead of each channel.
		return Base{}, &param.Error{Method: method, Name: "scale", Value: b.rule,
			Reason: "channel standardises per index of a tensor sample's first mode, and " + method + " reads vector rows (a tensor file is flattened for it): use scale=standard, which is what channel is on vector rows, or a tensor method (1stm, r1stm)"}
	}
	if m, ok := Lookup(method); ok {
		b.minRows = m.MinRows
	}
	return b, nil
}

// checkFit is the check of a fit's training rows: CheckMatrix, then the
// method's Info.MinRows.
func (b *Base) checkFit(X mat.Matrix, wantCols int) error {
	if err := CheckMatrix(X, wantCols); err != nil {
		return fmt.Errorf("%s: %w", b.method, err)
	}
	if n, _ := X.Dims(); n < b.minRows {
		return fmt.Errorf("%s: need at least %d training rows, got %d", b.method, b.minRows, n)
	}
	return nil
}

// Defaulted reports whether the named parameter was left unset and took its
// declared default (as opposed to being given, even with the default's
// value). A method may adapt a default to the data (kpca caps its default
// component count at n − 1) where a given value out of range is an error.
func (b *Base) Defaulted(name string) bool { return b.defaulted[name] }

// base gives Save and Load the Base of a detector that embeds one.
func (b *Base) base() *Base { return b }

// Method returns the registered name of the detector's method.
func (b *Base) Method() string { return b.method }

// Params returns the resolved parameters the detector was built with, as
// key=value text (a copy).
func (b *Base) Params() map[string]string {
	m := make(map[string]string, len(b.params))
	for k, v := range b.params {
		m[k] = v
	}
	return m
}

// Threshold returns the score above which a row is an anomaly, set by Fit.
func (b *Base) Threshold() float64 { return b.threshold }

// Fitted reports whether the detector has been fitted (or loaded).
func (b *Base) Fitted() bool { return b.fitted }

// Dim returns the number of columns the detector was fitted on.
func (b *Base) Dim() int { return b.dim }

// CheckStateDim is for a method's UnmarshalBinary, which Load calls after
// restoring the shared state: it returns an error unless d, the column
// count the method's own state is for, is Dim. A model file whose two
// states disagree (damaged, or written by hand: its checksum is no
// signature) otherwise passed every check and panicked in Score.
func (b *Base) CheckStateDim(d int) error {
	if d != b.dim {
		return fmt.Errorf("%s: the method's state is for %d columns, the model's shared state for %d", b.method, d, b.dim)
	}
	return nil
}

// Warning describes a fit whose model is degenerate, "" otherwise: every
// training score equal, so the threshold separates nothing.
func (b *Base) Warning() string { return b.warning }

// Report passes a progress report to the configured callback, if any.
func (b *Base) Report(stage string, done, total int) {
	if b.progress != nil {
		b.progress(stage, done, total)
	}
}

// Stage returns the fitted scale stage (nil before Fit).
func (b *Base) Stage() *scale.Stage { return b.stage }

// FitFunc fits a method on the (scaled) training rows and returns their
// scores, from which Base sets the threshold.
type FitFunc func(ctx context.Context, X mat.Matrix) (train []float64, err error)

// FitWith checks X, fits the scale stage on it, runs the method's fit on
// the scaled rows and sets the threshold from the training scores.
func (b *Base) FitWith(ctx context.Context, X mat.Matrix, fit FitFunc) error {
	return b.FitLabeledWith(ctx, X, nil, func(ctx context.Context, X mat.Matrix, _ []int) ([]float64, error) {
		return fit(ctx, X)
	})
}

// FitLabeledWith is FitWith for semi-supervised methods: y (len = rows of
// X, or nil) is passed through to the method's fit.
func (b *Base) FitLabeledWith(ctx context.Context, X mat.Matrix, y []int, fit func(ctx context.Context, X mat.Matrix, y []int) ([]float64, error)) error {
	X = csr.Input(X) // any james-bowman/sparse format, rows sorted
	if err := b.checkFit(X, 0); err != nil {
		return err
	}
	if n, _ := X.Dims(); y != nil && len(y) != n {
		return fmt.Errorf("%s: %d labels for %d rows", b.method, len(y), n)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	b.caution = ""
	stage, Xs, err := b.fitStage(X)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil { // the stage is a few passes over X: stop before the method
		return err
	}
	train, err := fit(ctx, Xs, y)
	if err != nil {
		return err
	}
	if train, err = b.settleTies(train, Xs); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil { // the rescoring takes no context: stop after it
		return err
	}
	if err := b.finish(train, stage, X); err != nil {
		return err
	}
	b.columns = nil // a new fit: the names of other data no longer apply
	return nil
}

// PartialFitWith folds more rows into a model: on an unfitted detector it
// fits the scale stage on X, afterwards it applies the stage it has (the
// stage is learned from the first batch and then kept, so the model's
// coordinates do not drift). fit returns the scores of X, from which the
// threshold is re-estimated.
func (b *Base) PartialFitWith(ctx context.Context, X mat.Matrix, fit FitFunc) error {
	X = csr.Input(X) // any james-bowman/sparse format, rows sorted
	if b.fitted {    // a later batch may be a single row
		if err := CheckMatrix(X, b.dim); err != nil {
			return fmt.Errorf("%s: %w", b.method, err)
		}
	} else if err := b.checkFit(X, 0); err != nil {
		return err
	}
	stage, Xs := b.stage, mat.Matrix(nil)
	var err error
	if !b.fitted {
		stage, Xs, err = b.fitStage(X)
	} else {
		Xs, err = b.applyStage(X)
	}
	if err != nil {
		return err
	}
	if !b.fitted {
		b.caution = "" // a fresh model: no caution of an earlier, failed fit
	}
	scores, err := fit(ctx, Xs)
	if err != nil {
		return err
	}
	return b.finish(scores, stage, X)
}

func (b *Base) fitStage(X mat.Matrix) (*scale.Stage, mat.Matrix, error) {
	var shape []int
	if b.shape != nil {
		shape = b.shape()
	}
	stage, err := scale.FitShape(b.rule, X, shape)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", b.method, err)
	}
	Xs, err := stage.Apply(X)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", b.method, err)
	}
	return stage, Xs, nil
}

func (b *Base) applyStage(X mat.Matrix) (mat.Matrix, error) {
	Xs, err := b.stage.Apply(X)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.method, err)
	}
	return Xs, nil
}

// ScoreError reports scores that are not numbers. Among training scores
// it is a defect of the method, never of the data. Among the scores of new
// rows it is what a kernel that grows without bound (poly, linear) gives a
// row so far outside the training data that its kernel values overflow
// float64; Score returns it rather than a NaN.
type ScoreError struct {
	Method   string
	Rows     []int // zero-based rows with a NaN score (at most 5)
	Count    int
	Training bool // the rows are training rows
}

func (e *ScoreError) Error() string {
	rows := make([]int, len(e.Rows))
	for i, r := range e.Rows {
		rows[i] = r + 1
	}
	list := fmt.Sprint(rows)
	if e.Count > len(rows) {
		list = list[:len(list)-1] + " …]"
	}
	if e.Training {
		return fmt.Sprintf("%s: %d training scores are NaN (rows %s): this is a defect of the method; please report it with the data", e.Method, e.Count, list)
	}
	// "data row": the rows of X from 1, which in a CSV file are its lines
	// after the header.
	what := fmt.Sprintf("data row %d cannot be scored: its kernel values overflow", rows[0])
	if e.Count > 1 {
		what = fmt.Sprintf("%d rows cannot be scored (data rows %s): their kernel values overflow", e.Count, list)
	}
	return fmt.Sprintf("%s: %s float64, as a kernel without a bound (poly, linear) does for rows far outside the training data; check their values and units, or use a bounded kernel (rbf, laplacian)", e.Method, what)
}

// nanRows returns a *ScoreError for the NaN values of scores, or nil.
func nanRows(method string, scores []float64, training bool) error {
	bad := ScoreError{Method: method, Training: training}
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

// finish sets the threshold from the training scores and records the
// fitted stage and the column count of the training rows X.
func (b *Base) finish(train []float64, stage *scale.Stage, X mat.Matrix) error {
	if err := nanRows(b.method, train, true); err != nil {
		return err
	}
	if len(train) == 0 {
		return fmt.Errorf("%s: the method returned no training scores", b.method)
	}
	if !(b.cont > 0 && b.cont <= 0.5) {
		panic(fmt.Sprintf("detector: contamination %v out of (0, 0.5]", b.cont))
	}
	sorted := sortedScores(train) // one sorted copy for the threshold and the tie count
	b.threshold = thresholdOfSorted(sorted, b.cont)
	b.warning = ""
	if b.caution != "" {
		b.warning = b.caution
	} else if allEqual(train) {
		cause, hint := b.tieCause()
		b.warning = fmt.Sprintf("%s: every training score is %v, so the model cannot rank rows: the data are constant%s (%s)", b.method, train[0]+0, cause, hint)
	} else if tie, v := modeOfSorted(sorted); tie < len(train) && float64(tie) > (1-b.cont)*float64(len(train)) {
		// A single 1e15 in one column, at scale=none: the width rule
		// followed it, and ocsvm, svdd and kde gave the other 59 of 60
		// rows one score, with no warning.
		cause, hint := b.tieCause()
		b.warning = fmt.Sprintf("%s: %d of the %d training scores are equal (%v), more than the 1 − contamination share the threshold leaves unflagged: the model tells apart only the %d rows outside that tie. The data hold that many copies of one row%s (%s)", b.method, tie, len(train), v+0, len(train)-tie, cause, hint)
	} else if r, _ := X.Dims(); r == 1 {
		b.warning = fmt.Sprintf("%s: fitted on a single row: the threshold is that row's own score, and a model of one point says little about which rows are typical (fit on more rows)", b.method)
	} else if m := len(train); m < r && float64(m)*b.cont < 1 {
		// threshold_rows=1: the threshold was one row's score, and
		// scoring the training rows flagged 92 of 100 (expose) or 54 of
		// 100 (kde) at contamination 0.1.
		b.warning = fmt.Sprintf("%s: the threshold is set from the scores of %d of the %d training rows, too few to hold one expected anomaly at contamination %v (1/contamination = %v rows): it flags an arbitrary share of the rows (score more: threshold_rows, -1 for all rows; the sgd solver of expose scores the rows it visited, at most iterations)", b.method, m, r, b.cont, 1/b.cont)
	}
	_, cols := X.Dims()
	b.stage, b.dim, b.fitted = stage, cols, true
	return nil
}

// nearTie is the relative distance from the threshold within which a
// training score is rescored by SettleTiesWith's Score path: 10⁻⁶ of the
// scores' scale, above what float32 kernel caches (relative error 6·10⁻⁸
// an entry) and eigendecompositions leave in a training score, so that a
// row outside it is on the same side of the threshold by either
// computation.
const nearTie = 1e-6

// tieCause completes the tied-scores warnings: the second cause they name
// and what they advise. A method with a width (gamma or bandwidth) may
// have one that does not suit the data; iforest and gauss have none to
// choose.
func (b *Base) tieCause() (cause, hint string) {
	_, gamma := b.params["gamma"]
	_, bw := b.params["bandwidth"]
	if !gamma && !bw {
		return "", "check the data for copies of one row and constant columns"
	}
	cause = ", or the kernel width or bandwidth does not suit the scale of the data"
	if b.rule == scale.None {
		return cause, "set scale=standard, or choose the width"
	}
	return cause, "choose another width or bandwidth, or leave it to its rule"
}

// settleTies returns the training scores the threshold is set from: when
// the method asked for it (SettleTiesWith), the scores of the scaled
// training rows Xs near the threshold (within nearTie of the scores'
// scale) are replaced by what the method's Score gives them; train
// otherwise. Rescoring only those rows keeps the cost to the ties: all of
// the rows of tied data, a handful of ordinary data (rescoring every row
// added 16–25% to kpca's and svdd's fits).
func (b *Base) settleTies(train []float64, Xs mat.Matrix) ([]float64, error) {
	n, _ := Xs.Dims()
	if b.tieScore == nil || len(train) != n || nanRows(b.method, train, true) != nil {
		return train, nil // finish reports NaN scores
	}
	thr := ThresholdFromScores(train, b.cont)
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
	s, err := b.tieScore(nil, rowsOf(Xs, near))
	if err != nil {
		return nil, err
	}
	out := append([]float64(nil), train...)
	for k, i := range near {
		out[i] = s[k]
	}
	return out, nil
}

// rowsOf returns the rows idx of X, CSR input as CSR.
func rowsOf(X mat.Matrix, idx []int) mat.Matrix {
	if sp, ok := csr.Input(X).(*sparse.CSR); ok {
		return csr.Subset(sp, idx)
	}
	_, d := X.Dims()
	out := mat.NewDense(len(idx), d, nil)
	for k, i := range idx {
		mat.Row(out.RawRowView(k), i, X)
	}
	return out
}

// modeOfSorted returns how many values of the sorted s equal its most
// frequent value, and that value.
func modeOfSorted(s []float64) (int, float64) {
	best, val := 0, 0.0
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] == s[i] {
			j++
		}
		if j-i > best {
			best, val = j-i, s[i]
		}
		i = j
	}
	return best, val
}

func allEqual(v []float64) bool {
	for _, x := range v[1:] {
		if x != v[0] {
			return false
		}
	}
	return len(v) > 1
}

// ScoreFunc scores the (scaled) rows of X into dst.
type ScoreFunc func(dst []float64, X mat.Matrix) ([]float64, error)

// ScoreWith checks X against the fitted model, applies the scale stage and
// runs the method's scoring; dst is reused as detector.ScoreDst does.
func (b *Base) ScoreWith(dst []float64, X mat.Matrix, score ScoreFunc) ([]float64, error) {
	X = csr.Input(X) // any james-bowman/sparse format, rows sorted
	if !b.fitted {
		return nil, ErrNotFitted
	}
	if err := CheckMatrix(X, b.dim); err != nil {
		return nil, fmt.Errorf("%s: %w", b.method, err)
	}
	Xs, err := b.applyStage(X)
	if err != nil {
		return nil, err
	}
	out, err := score(dst, Xs)
	if err != nil {
		return nil, err
	}
	if err := nanRows(b.method, out, false); err != nil {
		return nil, err
	}
	return out, nil
}

// baseState is Base's part of a saved model.
type baseState struct {
	Dim       int
	Threshold float64
	Warning   string
	Rule      string
	Offset    []float64
	Divisor   []float64
	Index     []int // compact stage of wide sparse data (scale.Stage)
	Width     int
}

func (b *Base) saveState() baseState {
	return baseState{Dim: b.dim, Threshold: b.threshold, Warning: b.warning,
		Rule: b.stage.Rule, Offset: b.stage.Offset, Divisor: b.stage.Divisor, Index: b.stage.Index, Width: b.stage.Width}
}

func (b *Base) restoreState(s baseState) error {
	if s.Dim < 1 || math.IsNaN(s.Threshold) || math.IsInf(s.Threshold, 0) {
		// Fit never sets an infinite threshold (ThresholdFromScores
		// falls back to the largest finite score), so one here is a
		// crafted or damaged model.
		return fmt.Errorf("invalid base state (column count %d, threshold %v)", s.Dim, s.Threshold)
	}
	if s.Rule != b.rule {
		return fmt.Errorf("scale stage %q differs from the parameters' %q", s.Rule, b.rule)
	}
	st := &scale.Stage{Rule: s.Rule, Offset: s.Offset, Divisor: s.Divisor, Index: s.Index, Width: s.Width}
	cols := s.Dim
	if s.Rule == scale.None {
		cols = -1
	}
	if err := st.Check(cols); err != nil {
		return err
	}
	b.dim, b.threshold, b.warning, b.stage, b.fitted = s.Dim, s.Threshold, s.Warning, st, true
	return nil
}

// Adopt marks the detector fitted with a model computed outside this
// process (package beam's distributed fit): stage is the scale stage the
// rows were scaled with (nil means rule none), dim the column count and
// threshold the decision threshold.
func (b *Base) Adopt(stage *scale.Stage, dim int, threshold float64) error {
	if stage == nil {
		stage = &scale.Stage{Rule: scale.None}
	}
	if stage.Rule != b.rule {
		return fmt.Errorf("%s: scale stage %q differs from the configuration's %q", b.method, stage.Rule, b.rule)
	}
	cols := dim
	if stage.Rule == scale.None {
		cols = -1
	}
	if dim < 1 || math.IsNaN(threshold) || math.IsInf(threshold, 0) {
		return fmt.Errorf("%s: invalid column count %d or threshold %v", b.method, dim, threshold)
	}
	if err := stage.Check(cols); err != nil {
		return fmt.Errorf("%s: %w", b.method, err)
	}
	b.stage, b.dim, b.threshold, b.warning, b.fitted = stage, dim, threshold, "", true
	b.columns = nil
	return nil
}

// ParseConfig returns the configuration the registry builds from
// key=value parameters (what --set gives), unset keys left unset, with the
// declared checks; unknown keys are errors.
func ParseConfig[C any, P interface {
	*C
	Config
}](method string, params map[string]string) (C, error) {
	var cfg C
	err := bindAll(method, P(&cfg)).Apply(params)
	return cfg, err
}
