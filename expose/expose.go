package expose

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/param"
	"github.com/kernelad/anomaly/randfeat"
	"github.com/kernelad/anomaly/scale"
)

// Solver names.
const (
	Batch = "batch"
	SGD   = "sgd"
)

// Feature map names.
const (
	RFF = "rff" // random Fourier features (Rahimi & Recht)
	ORF = "orf" // orthogonal random features (Yu et al.), RBF only
)

// Config configures an EXPoSE detector. The zero value is valid and means the
// documented defaults.
type Config struct {
	// Kernel is the shift-invariant kernel, rbf (default) or laplacian,
	// with its width γ or the rule that picks it from the training data:
	// scale_scott (default, DefaultWidthRule), scale (scikit-learn's
	// γ = 1/(d·Var(X))) or median.
	Kernel kernel.Spec
	// Features is D, the number of random features (default 2000) of the
	// maps rff and orf.
	Features int
	// Map is "rff" (default), "orf" or "nystrom" (Nyström features on
	// Landmarks training rows; see the package documentation).
	Map string
	// Landmarks is m, the number of landmark rows of map=nystrom (0 means
	// DefaultLandmarks), drawn uniformly from the training rows (the SGD
	// solver: from its stage sample) and capped at their number.
	Landmarks int
	// Solver is "batch" (default: the exact empirical mean embedding, one
	// streaming pass) or "sgd" (Algorithm 1 of the paper).
	Solver string
	// Iterations is T for the SGD solver. When 0, T comes from Epsilon as
	// ⌈M²/ε²⌉; when both are 0, T = 1000.
	Iterations int
	// Epsilon is the target accuracy ε of ‖w_T − w*‖ (Theorem 1); 0 means
	// unset.
	Epsilon float64
	// Radius is M, the bound of the kernel (k(x,x) ≤ M²) and radius of the
	// ball the SGD iterate is projected onto. Default 1, the bound of every
	// normalised shift-invariant kernel.
	Radius float64
	// ChunkRows caps the rows mapped at a time (default 512): a worker's
	// feature block never holds more than ChunkRows × D values (fewer at
	// large D, see cacheChunk), and the SGD solver reads its rows by index
	// ChunkRows at a time.
	ChunkRows int
	// ThresholdRows caps the training rows scored to set the threshold in a
	// batch fit (default 10,000; rows drawn at random when n is larger;
	// −1 means all rows).
	ThresholdRows int
	// StageRows is the size of the uniform sample of training rows that
	// the SGD solver fits the scale stage, the width rule and the
	// threshold on (0 means max(T, DefaultStageRows); −1 means every row),
	// so that its fit reads that sample and the T rows it visits, whatever
	// n is.
	StageRows int
	// Regularizer adds λΩ(w) to the objective (section 4.2 of the paper):
	// "none" (default: the paper's objective), "l1" (λ‖w‖₁) or
	// "roughness" (λ⟨D²w, D²w⟩); see the package documentation for the
	// solutions.
	Regularizer string
	// Lambda ≥ 0 is the regulariser's weight λ (0: none).
	Lambda float64
	// Src is the source of randomness for the feature map, the samples of
	// rows and the SGD steps. nil means a PCG source seeded with 0.
	Src rand.Source
	// Common holds the contamination rate, the scale stage, the sample a
	// fit may be restricted to and the progress callback.
	method.Common
}

// DefaultWidthRule is the width rule of a Config whose Kernel names
// neither γ nor a rule (Kernel.Rule ""): the scale width shrunk at Scott's
// rate (kernel.ScaleScottRule), as kde's default bandwidth.
const DefaultWidthRule = kernel.ScaleScottRule

// DefaultStageRows is the least size of the SGD solver's sample when
// StageRows is 0: the sample is max(T, DefaultStageRows) rows. The scale
// stage's means and deviations from 10,000 rows lie within about 1% of
// the data's (standard error σ/√n), and the threshold, the
// (1 − contamination) quantile of their scores, within about 0.3% of the
// rows in rank at contamination 0.1 (√(c(1 − c)/n)).
const DefaultStageRows = 10000

// Bind declares the parameters of EXPoSE. iterations defaults to 1000 only
// when epsilon is not set (T then comes from ε).
func (c *Config) Bind(s *param.Set) {
	c.Kernel.Bind(s, kernel.Choices{Kinds: []string{"rbf", "laplacian"}, Rules: []string{DefaultWidthRule, kernel.ScaleRule, kernel.MedianRule}})
	s.Int(&c.Features, "features", 2000, param.AtLeast(1), "number of random features D")
	s.Choice(&c.Map, "map", Nystrom, []string{RFF, ORF, Nystrom}, nil, "feature map: nystrom (landmark rows), rff or orf (random features; orthogonal: rbf only)")
	s.Int(&c.Landmarks, "landmarks", DefaultLandmarks, param.AtLeast(1), "nystrom: landmark rows m, drawn from the training rows (capped at their number)")
	s.Choice(&c.Solver, "solver", Batch, []string{Batch, SGD}, nil, "batch (exact mean embedding) or sgd (Algorithm 1)")
	if c.Epsilon > 0 && c.Iterations == 0 {
		s.OptionalInt(&c.Iterations, "iterations", param.Interval(1, MaxIterations, false, false), "SGD iterations T (from epsilon when that is set)")
	} else {
		s.Int(&c.Iterations, "iterations", 1000, param.Interval(1, MaxIterations, false, false), "SGD iterations T (from epsilon when that is set)")
	}
	s.OptionalFloat(&c.Epsilon, "epsilon", param.Above(0), "SGD accuracy ε; T = ⌈M²/ε²⌉ when iterations is not given")
	s.Float(&c.Radius, "radius", 1, param.Above(0), "kernel bound M: the SGD ball radius")
	s.Int(&c.ChunkRows, "chunk", 512, param.AtLeast(1), "rows mapped at a time")
	s.Int(&c.ThresholdRows, "threshold_rows", 10000, param.AtLeast(1).Or(-1, "all rows"), "training rows scored to set the threshold (batch)")
	s.OptionalInt(&c.StageRows, "stage_rows", param.AtLeast(1).Or(-1, "all rows"),
		"sgd: training rows (a uniform sample) the scale stage, the width rule and the threshold are fitted on; unset: max(iterations, 10000)")
	s.Choice(&c.Regularizer, "regularizer", NoRegularizer, []string{NoRegularizer, L1, Roughness}, nil,
		"regulariser λΩ(w) added to the objective: none, l1 (λ‖w‖₁) or roughness (λ⟨D²w, D²w⟩)")
	s.Float(&c.Lambda, "lambda", 0, param.AtLeast(0), "weight λ of the regulariser")
	s.Seed(&c.Src, "seed", 0, func(seed uint64) rand.Source { return rand.NewPCG(seed, seed) }, "seed of the feature map, the samples of rows and the SGD steps")
}

// EXPoSE is the EXPoSE anomaly detector: score(y) = −⟨φ(y), w⟩ with w the
// (approximate) kernel mean embedding of the training data.
type EXPoSE struct {
	method.Base[*model]
	cfg Config // resolved
	// rng is the detector's random stream (from cfg.Src): every fit draws
	// its map and samples from it, so two fits of one detector differ.
	// Fits run one at a time (Base), and only they read it.
	rng *rand.Rand
}

var _ detector.Detector = (*EXPoSE)(nil)

// MaxIterations bounds T, given or from epsilon: at the default D = 2000
// an iteration takes about 10 µs here, so 10⁹ are hours of fitting; more
// is a mistake in the parameters, not a fit to wait for.
const MaxIterations = 1e9

// New validates cfg and returns an unfitted detector.
func New(cfg Config) (*EXPoSE, error) {
	if cfg.Iterations == 0 && cfg.Epsilon > 0 && !math.IsInf(cfg.Epsilon, 0) {
		r := cfg.Radius
		if r == 0 {
			r = 1
		}
		// (M/ε)², not M²/ε²: the squares overflow or underflow for
		// M and ε near the ends of float64 (1e308/1e308 made NaN, and
		// the iteration count −2^63). At least one iteration.
		q := r / cfg.Epsilon
		t := max(math.Ceil(q*q), 1)
		if !(t <= MaxIterations) {
			return nil, &param.Error{Method: "expose", Name: "epsilon", Value: fmt.Sprint(cfg.Epsilon),
				Reason: fmt.Sprintf("asks for %.3g iterations; choose a larger epsilon", t)}
		}
		cfg.Iterations = int(t)
	}
	d := &EXPoSE{cfg: cfg}
	b, err := method.NewBase("expose", &d.cfg, method.Hooks[*model]{Fit: d.fit, Decode: d.decode, StageSample: d.stageSample})
	if err != nil {
		return nil, err
	}
	if d.cfg.Map == ORF && d.cfg.Kernel.Kind == "laplacian" {
		return nil, errors.New("expose: map orf needs an isotropic kernel (rbf); the laplacian kernel's spectrum is not rotation invariant")
	}
	if d.cfg.Map == Nystrom && d.cfg.Regularizer == Roughness && d.cfg.Lambda > 0 {
		return nil, errors.New("expose: regularizer roughness needs the frequencies of a random map (rff or orf); the nystrom map has none")
	}
	d.Base, d.rng = b, rand.New(d.cfg.Src)
	return d, nil
}

// Config returns the resolved configuration.
func (d *EXPoSE) Config() Config { return d.cfg }

// Iterations returns T, the number of SGD iterations a fit performs.
func (d *EXPoSE) Iterations() int { return d.cfg.Iterations }

// Embedding returns a copy of w, the fitted mean embedding in feature space
// (nil before Fit).
func (d *EXPoSE) Embedding() []float64 {
	if m, ok := d.Model(); ok {
		return append([]float64(nil), m.w...)
	}
	return nil
}

// Gamma returns the kernel width used (resolved from the data under a
// width rule). It is 0 before Fit.
func (d *EXPoSE) Gamma() float64 {
	if m, ok := d.Model(); ok {
		return m.gamma
	}
	return 0
}

// FeatureMap returns the fitted feature map (nil before Fit): a
// *randfeat.Fourier or *randfeat.Orthogonal, or a *randfeat.Nystrom for
// map=nystrom. It must not be changed.
func (d *EXPoSE) FeatureMap() randfeat.Map {
	if m, ok := d.Model(); ok {
		return m.fm
	}
	return nil
}

// drawMap draws the feature map for dim inputs at width gamma.
func (d *EXPoSE) drawMap(dim int, gamma float64) randfeat.Map {
	src := rngSource{d.rng}
	var k kernel.ShiftInvariant = kernel.RBF{Gamma: gamma}
	if d.cfg.Kernel.Kind == "laplacian" {
		k = kernel.Laplacian{Gamma: gamma}
	}
	if d.cfg.Map == ORF {
		return randfeat.NewOrthogonal(k.(kernel.Isotropic), dim, d.cfg.Features, src)
	}
	return randfeat.NewFourier(k, dim, d.cfg.Features, src)
}

// newModel draws the feature map of a fit of dim columns at width gamma,
// folds the centring ce (if any) into its phases, and returns a model on
// it with a zero embedding.
func (d *EXPoSE) newModel(dim int, gamma float64, ce *centring) *model {
	fm := d.drawMap(dim, gamma)
	if ce != nil {
		ce.fold(fm.(cosineMap))
	}
	return &model{fm: fm, gamma: gamma, reg: newRegularizer(d.cfg.Regularizer, d.cfg.Lambda, fm),
		w: make([]float64, fm.Dim()), chunk: d.cfg.ChunkRows}
}

// buildModel returns the model a fit starts from, with a zero embedding:
// on a random map drawn for dim columns at width gamma, the centring ce
// folded into its phases (newModel), or on a Nyström map whose landmarks
// are drawn from S (the SGD solver's sample) or, when S is nil, from
// every training row. A shift-invariant kernel does not see the centring
// of sparse rows, so the Nyström map needs none.
func (d *EXPoSE) buildModel(ctx context.Context, f *method.Fitting, dim int, gamma float64, ce *centring, S mat.Matrix) (*model, error) {
	if d.cfg.Map != Nystrom {
		return d.newModel(dim, gamma, ce), nil
	}
	L, err := d.drawLandmarks(ctx, f, S)
	if err != nil {
		return nil, err
	}
	return d.newNystromModel(ctx, f, gamma, L)
}

// rngSource lets the map draw from the detector's stream.
type rngSource struct{ r *rand.Rand }

func (s rngSource) Uint64() uint64 { return s.r.Uint64() }

// Fit learns the embedding of the rows of X. It draws a new feature map, so
// two fits of one detector use different maps; build a new detector with the
// same seed to reproduce a fit.
func (d *EXPoSE) Fit(ctx context.Context, X mat.Matrix) error { return d.Base.Fit(ctx, X) }

// Score writes −⟨φ(y), w⟩ for every row y of X into dst.
func (d *EXPoSE) Score(dst []float64, X mat.Matrix) ([]float64, error) {
	return d.Base.Score(dst, X)
}

// fit is the fit of either solver (Hooks.Fit).
func (d *EXPoSE) fit(ctx context.Context, f *method.Fitting) (*model, []float64, error) {
	if d.cfg.Solver == SGD {
		return d.fitSGD(ctx, f)
	}
	return d.fitBatch(ctx, f)
}

// fitBatch computes the mean embedding of every row in one pass: the
// width rule's passes (widthRows), the map, the sum of the features
// (sumFeatures), then the threshold rows.
func (d *EXPoSE) fitBatch(ctx context.Context, f *method.Fitting) (*model, []float64, error) {
	n, dim := f.Dims()
	gamma, ce, err := d.widthRows(ctx, f)
	if err != nil {
		return nil, nil, err
	}
	m, err := d.buildModel(ctx, f, dim, gamma, ce, nil)
	if err != nil {
		return nil, nil, err
	}
	sum, err := m.sumFeatures(ctx, f, func(done int) { f.Report("embedding", done, n) })
	if err != nil {
		return nil, nil, err
	}
	floats.Scale(1/float64(n), sum)
	m.mean, m.w, m.n = sum, regularized(m.reg, sum), n
	m.settle()
	if lim := d.thresholdCap(); n > lim {
		X, err := f.Rows(ctx, method.SampleIndices(d.rng, n, lim))
		if err != nil {
			return nil, nil, err
		}
		f.CautionIsolating(d.cfg.Kernel.Kind, X, gamma)
		train, err := m.trainScores(ctx, f, X)
		return m, train, err
	}
	train, err := d.scoreEveryRow(ctx, f, m)
	return m, train, err
}

// fitSGD runs Algorithm 1 for T steps on rows drawn by index. The scale
// stage was fitted on a uniform sample of StageRows rows (Hooks.
// StageSample); the width rule and the threshold come from the same rows,
// so that the fit reads the sample and the T rows it visits, whatever n
// is. When the sample would be every row, the stage, the width and the
// threshold take every row, as a batch fit's do.
func (d *EXPoSE) fitSGD(ctx context.Context, f *method.Fitting) (*model, []float64, error) {
	n, dim := f.Dims()
	S, _ := f.StageSample()
	var (
		gamma float64
		ce    *centring
		err   error
	)
	if S == nil {
		gamma, ce, err = d.widthRows(ctx, f)
	} else {
		gamma, ce, err = d.widthSample(S, f)
	}
	if err != nil {
		return nil, nil, err
	}
	m, err := d.buildModel(ctx, f, dim, gamma, ce, S)
	if err != nil {
		return nil, nil, err
	}
	smp := &sampler{rng: d.rng, n: n}
	if err := m.sgdRows(ctx, f, d.cfg.Iterations, smp.next, d.cfg.Radius); err != nil {
		return nil, nil, err
	}
	m.settle()
	if S == nil {
		train, err := d.scoreEveryRow(ctx, f, m)
		return m, train, err
	}
	f.CautionIsolating(d.cfg.Kernel.Kind, S, gamma)
	train, err := m.trainScores(ctx, f, S)
	return m, train, err
}

// stageSample is Hooks.StageSample: the SGD solver's sample size, drawn
// from the detector's stream.
func (d *EXPoSE) stageSample() (int, *rand.Rand) {
	if d.cfg.Solver != SGD {
		return 0, nil
	}
	switch k := d.cfg.StageRows; {
	case k < 0:
		return 0, nil
	case k > 0:
		return k, d.rng
	}
	return max(d.cfg.Iterations, DefaultStageRows), d.rng
}

// widthRows resolves the kernel width on every training row, in passes
// (kernel.Spec.WidthRows: one for the range check, two more for the scale
// rules; the median rule reads the rows of its pairs), reported as the
// stage "width". For sparse rows it also returns the centring the model
// folds into its phases (centringOf: two passes, which then give the
// scale rules' γ).
func (d *EXPoSE) widthRows(ctx context.Context, f *method.Fitting) (float64, *centring, error) {
	n, dim := f.Dims()
	spec := d.cfg.Kernel // its rule resolved by New (never "")
	scaleRule := spec.Gamma == 0 && spec.Rule != kernel.MedianRule
	centre := f.Sparse() && (d.cfg.Scale == scale.Standardize || d.cfg.Scale == scale.MinMaxRule)
	passes := 1
	if scaleRule || centre {
		passes = 3
	}
	var (
		done    int
		passErr error
	)
	rs := kernel.Rows{N: n, Cols: dim,
		Pass: func(fn func(X mat.Matrix) error) error {
			passErr = f.Scan(ctx, passRows(dim), func(_ int, X mat.Matrix) error {
				r, _ := X.Dims()
				done += r
				f.Report("width", min(done, passes*n), passes*n)
				return fn(X)
			})
			return passErr
		},
		Read: func(idx []int) (mat.Matrix, error) {
			X, err := f.Rows(ctx, idx)
			passErr = err
			return X, err
		}}
	named := func(err error) error {
		if err == passErr {
			return err // a read error or the context's, named already
		}
		return fmt.Errorf("expose: %w", err)
	}
	var ce *centring
	if centre {
		check := spec
		if scaleRule {
			check.Gamma = 1 // the range check only: γ comes from the centred rows
		}
		g, err := check.WidthRows(rs, rngSource{d.rng})
		if err != nil {
			return 0, nil, named(err)
		}
		if ce, err = centringOf(d.cfg.Scale, rs); err != nil {
			return 0, nil, err
		}
		if cg := ce.gamma(spec, n); cg > 0 {
			g = cg
		}
		f.Report("width", passes*n, passes*n)
		return g, ce, nil
	}
	g, err := spec.WidthRows(rs, rngSource{d.rng})
	if err != nil {
		return 0, nil, named(err)
	}
	f.Report("width", passes*n, passes*n)
	return g, nil, nil
}

// passRows is the chunk of rows of the width rule's passes: 1 MiB of
// values, so that the scaled chunk each pass allocates stays small beside
// the model (method.ChunkRows' 8 MiB, three passes in a row, held 25 MB
// of garbage at the peak of a fit of 100,000 × 20 rows).
func passRows(dim int) int { return max(256, (1<<20)/(8*max(dim, 1))) }

// widthSample resolves the kernel width on the SGD solver's sample S of
// the training rows (the rows the stage was fitted on); the scale_scott
// rule's factor n^(2/(d+4)) counts all n rows, not the sample's. For
// sparse rows it also returns the centring of the sample.
func (d *EXPoSE) widthSample(S mat.Matrix, f *method.Fitting) (float64, *centring, error) {
	n, dim := f.Dims()
	spec := d.cfg.Kernel // its rule resolved by New (never "")
	scott := spec.Gamma == 0 && spec.Rule == kernel.ScaleScottRule
	if scott {
		spec.Rule = kernel.ScaleRule // on the sample; the factor below counts all n rows
	}
	g, err := spec.Width(S, rngSource{d.rng})
	if err != nil {
		return 0, nil, fmt.Errorf("expose: %w", err)
	}
	if scott {
		g = kernel.ScaleScottGamma(g, n, dim)
	}
	if !f.Sparse() {
		return g, nil, nil
	}
	k, _ := S.Dims()
	ce, err := centringOf(d.cfg.Scale, kernel.Rows{N: k, Cols: dim, Pass: func(fn func(X mat.Matrix) error) error { return fn(S) }})
	if err != nil || ce == nil {
		return g, nil, err
	}
	if cg := ce.gamma(d.cfg.Kernel, n); cg > 0 {
		g = cg
	}
	return g, ce, nil
}

// cautionRows is the most rows a fit that scores every row holds for the
// isolation caution (kernel.IsolatingSample reads at most 1,001 of them).
const cautionRows = 10000

// scoreEveryRow returns the scores of every training row with the model,
// for the threshold: a pass (stage "score"), holding the rows for the
// isolation caution when there are at most cautionRows of them, otherwise
// reading a uniform sample of that many afterwards.
func (d *EXPoSE) scoreEveryRow(ctx context.Context, f *method.Fitting, m *model) ([]float64, error) {
	n, _ := f.Dims()
	if n <= cautionRows {
		X, err := f.Matrix(ctx)
		if err != nil {
			return nil, err
		}
		f.CautionIsolating(d.cfg.Kernel.Kind, X, m.gamma)
		return m.trainScores(ctx, f, X)
	}
	train, err := m.scoreScan(ctx, f)
	if err != nil {
		return nil, err
	}
	S, err := f.Rows(ctx, method.SampleIndices(d.rng, n, cautionRows))
	if err != nil {
		return nil, err
	}
	f.CautionIsolating(d.cfg.Kernel.Kind, S, m.gamma)
	return train, nil
}

// thresholdCap is the most training rows scored to set the threshold.
func (d *EXPoSE) thresholdCap() int {
	if d.cfg.ThresholdRows < 0 {
		return math.MaxInt
	}
	return d.cfg.ThresholdRows
}

// PartialFit folds more rows into the model; on an unfitted detector it
// starts a new one (resolving gamma on the rows of X and drawing the
// feature map). With the batch solver w stays the exact mean of every row
// seen; with the SGD solver Algorithm 1 continues from its current iterate
// and step size over the rows of X in order. The threshold is re-estimated
// from the scores of X, the most recent data. As a fit, it changes nothing
// unless it succeeds.
func (d *EXPoSE) PartialFit(ctx context.Context, X mat.Matrix) error {
	return d.PartialFitWith(ctx, X, d.partialFit)
}

func (d *EXPoSE) partialFit(ctx context.Context, f *method.Fitting, prev *model, fitted bool) (*model, []float64, error) {
	n, dim := f.Dims()
	var m *model
	if fitted {
		m = prev.clone()
	} else {
		gamma, ce, err := d.widthRows(ctx, f)
		if err != nil {
			return nil, nil, err
		}
		if m, err = d.buildModel(ctx, f, dim, gamma, ce, nil); err != nil {
			return nil, nil, err
		}
		if d.cfg.Solver == Batch {
			m.mean = make([]float64, len(m.w))
		}
	}
	switch d.cfg.Solver {
	case Batch:
		s, err := m.sumFeatures(ctx, f, func(done int) { f.Report("embedding", done, n) })
		if err != nil {
			return nil, nil, err
		}
		tot := float64(m.n + n)
		floats.Scale(float64(m.n)/tot, m.mean)
		floats.AddScaled(m.mean, 1/tot, s)
		m.w, m.n = regularized(m.reg, m.mean), m.n+n
	case SGD:
		if err := m.sgdScan(ctx, f, d.cfg.Radius); err != nil {
			return nil, nil, err
		}
	}
	m.settle()
	train, err := m.scoreScan(ctx, f)
	return m, train, err
}

// regularized returns the embedding solved from the mean m: m itself
// without a regulariser, otherwise a solved copy.
func regularized(r regularizer, m []float64) []float64 {
	if !r.active() {
		return m
	}
	w := append([]float64(nil), m...)
	r.solve(w)
	return w
}
