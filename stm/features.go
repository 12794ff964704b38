package stm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/cpd"
	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/param"
	"github.com/kernelad/anomaly/tensor"
)

// Defaults of the tensor detectors (see the package documentation for how
// they were chosen).
const (
	DefaultNu          = 0.5
	DefaultGammaFactor = 1.0
	// DefaultR1SVMNu is R1SVM's ν, chosen by make defaults on the 15
	// ADBench sets (standardised features, median width): 0.883 mean AUC
	// against 0.856 at ν = 0.5. R1SVM's width rule is now scale_scott
	// (0.898 at ν = 0.9).
	DefaultR1SVMNu = 0.9
)

// Common holds the settings shared by 1STM and R1STM.
type Common struct {
	// Shape is the sample tensor shape; its product must equal the row
	// length of the data. It is required: New refuses a configuration
	// without it (detector.New takes it from Options.Shape, the command
	// line from N-d .npy/.npz files or --shape).
	Shape []int
	// Rank is the CP rank R of every sample; 0 means 1. It must be at most
	// the smallest side of Shape.
	Rank int
	// Gamma is the Gaussian width γ of eq. 4.18 on the factor vectors; 0
	// means the median rule: 1/median of Σ_n‖x^(n) − y^(n)‖² over pairs of
	// training component vectors (kernel.MedianGamma), times GammaFactor.
	Gamma float64
	// GammaFactor multiplies the median rule's γ when Gamma is 0; 0 means
	// DefaultGammaFactor.
	GammaFactor float64
	// Nu ∈ (0, 1] is the ν of the one-class machine; 0 means DefaultNu.
	Nu float64
	// CPTol and CPMaxIter are the CP-ALS stopping rule (cpd.Config); 0 means
	// cpd's defaults (1e-8, 100).
	CPTol     float64
	CPMaxIter int
	// Src seeds every random choice (the median rule's pairs, random
	// features); nil means PCG(1, 0x57a7). A source made by the seed
	// parameter (param.Seeded) starts afresh at every fit, so refits
	// of one detector agree; any other source is drawn from.
	Src rand.Source
	// Common holds the contamination rate, the scale stage, the sample a
	// fit may be made on and the progress callback.
	method.Common
}

// SampleShape returns the sample shape, which the scale stage's channel
// rule reads (method.Base).
func (c *Common) SampleShape() []int { return c.Shape }

// bind declares the shared tensor parameters.
func (c *Common) bind(s *param.Set) {
	s.Shape(&c.Shape, "shape", false, "sample tensor shape, e.g. 24x51 (required; taken from N-d .npy/.npz files)")
	s.Int(&c.Rank, "rank", 1, param.AtLeast(1), "CP rank R of every sample (at most the smallest side)")
	s.FloatOrRule(&c.Gamma, "gamma", "median", param.Above(0), "Gaussian width on the factor vectors, or median = 1/median Σ_n‖x^(n)−y^(n)‖²")
	s.Float(&c.GammaFactor, "gamma_factor", DefaultGammaFactor, param.Above(0), "factor on the median rule's γ (gamma=median)")
	s.Float(&c.Nu, "nu", DefaultNu, param.Interval(0, 1, true, false), "ν of the one-class machine")
	s.Float(&c.CPTol, "cp_tol", 1e-8, param.Above(0), "CP-ALS tolerance on the change of relative error")
	s.Int(&c.CPMaxIter, "cp_max_iter", 100, param.AtLeast(1), "CP-ALS sweep limit")
	s.Seed(&c.Src, "seed", 1, newSeedSource, "seed of the median rule's pairs and the random features")
}

// newSeedSource is the random source of seed=N.
func newSeedSource(seed uint64) rand.Source { return rand.NewPCG(seed, 0x57a7) }

// fitSource returns the source a fit draws from: a fresh one for a seed
// parameter's source (so that a fit, failed or not, changes nothing a
// later fit sees), else src itself.
func fitSource(src rand.Source) rand.Source {
	if s, ok := src.(*param.Seeded); ok {
		return newSeedSource(s.Seed)
	}
	return src
}

// resolved is what fits and models derive from a resolved Common: the
// sample shape, the rank and the CP-ALS settings that factorise rows.
type resolved struct {
	shape []int
	rank  int
	cp    cpd.Config
	d     int // row length Π shape
	dim   int // Σ shape: length of one component vector
}

// resolve derives the CP settings and sizes from c, whose fields hold
// their defaults (method.NewBase resolved them). A missing shape, or a
// rank the shape cannot take, is a parameter error.
func (c *Common) resolve(name string) (resolved, error) {
	r := resolved{rank: c.Rank, cp: cpd.Config{Rank: c.Rank, Tol: c.CPTol, MaxIter: c.CPMaxIter}}
	if len(c.Shape) == 0 {
		// Fit needs it to read a row as a tensor; refused here, a loop
		// over detector.Names() that builds every method failed only at
		// Fit.
		return r, &param.Error{Method: name, Name: "shape", Reason: "the sample shape is required: the sides of one sample tensor, whose product is the row length, as in shape=24x51 (the command line takes it from --shape or from N-d .npy/.npz files; detector.New from Options.Shape)"}
	}
	d, err := validShape(c.Shape)
	if err != nil {
		return r, &param.Error{Method: name, Name: "shape", Value: tensor.FormatShape(c.Shape), Reason: err.Error()}
	}
	if err := validateCP(r.cp, c.Shape); err != nil {
		return r, &param.Error{Method: name, Name: "rank", Value: fmt.Sprint(c.Rank), Reason: err.Error()}
	}
	r.shape = append([]int(nil), c.Shape...)
	r.d = d
	for _, s := range c.Shape {
		r.dim += s // at most d + len(shape): no overflow
	}
	return r, nil
}

// width is γ of the median rule on the component vectors F (times the
// factor), or the fixed γ; a *param.Error when the product leaves
// float64's positive range (checkWidth).
func (c *Common) width(name string, F *mat.Dense, src rand.Source) (float64, error) {
	if c.Gamma > 0 {
		return c.Gamma, nil
	}
	gamma := c.GammaFactor * medianGamma(F, src)
	return gamma, checkWidth(name, gamma, c.GammaFactor, kernel.MedianRule)
}

// medianGamma is the median rule on component vectors (or r1svm's rows),
// seeded.
func medianGamma(F mat.Matrix, src rand.Source) float64 {
	if r, _ := F.Dims(); r < 2 {
		return 1
	}
	if src == nil {
		src = rand.NewPCG(1, 2)
	}
	return kernel.MedianGamma(F, src)
}

// checkWidth refuses a width γ = gamma_factor × the rule's γ that is 0 or
// +Inf, as an extreme factor makes it (1e308 or 5e-324): the kernel would
// be NaN on equal rows (+Inf · 0) or constant, and a saved model needs
// 0 < γ < ∞. The error is the parameter's (exit 1 at the command line).
func checkWidth(name string, gamma, factor float64, rule string) error {
	if gamma > 0 && !math.IsInf(gamma, 1) {
		return nil
	}
	return &param.Error{Method: name, Name: "gamma_factor", Value: strconv.FormatFloat(factor, 'g', -1, 64),
		Reason: fmt.Sprintf("times the %s rule's γ it makes γ = %v, outside float64's range of widths; choose a factor nearer 1", rule, gamma)}
}

// fitErr prefixes a fit's error with the method's name, but for a
// parameter's error, which names the method itself.
func fitErr(name string, err error) error {
	var pe *param.Error
	if errors.As(err, &pe) {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}

// validShape checks a sample shape (sides ≥ 1, order ≥ 2, a product
// within int's range) and returns the product.
func validShape(shape []int) (int, error) {
	p := 1
	for _, s := range shape {
		if s < 1 {
			return 0, tensor.CheckShape(shape, 0)
		}
		if p > math.MaxInt/s {
			return 0, fmt.Errorf("the sample shape %s has more elements than an int holds", tensor.FormatShape(shape))
		}
		p *= s
	}
	if len(shape) < 2 {
		return 0, fmt.Errorf("the sample shape %s has order 1; tensor methods need order ≥ 2 (use a vector method)", tensor.FormatShape(shape))
	}
	return p, nil
}

// validateCP checks the rank against the shape as cpd does (the svd
// initialisation needs rank ≤ the smallest side), so errors read as cpd's.
func validateCP(cfg cpd.Config, shape []int) error {
	if cfg.Rank < 1 {
		return &cpd.RankError{Rank: cfg.Rank}
	}
	m := math.MaxInt
	for _, s := range shape {
		m = min(m, s)
	}
	if cfg.Rank > m {
		return &cpd.RankError{Rank: cfg.Rank, Shape: shape, SVDOnly: true}
	}
	if cfg.Tol < 0 || cfg.MaxIter < 0 {
		return fmt.Errorf("cp tolerance and iteration limit must be ≥ 0")
	}
	return nil
}

// cpBatch is the most samples factorised at once (one cpd.DecomposeBatch):
// the batch's Kruskal tensors live until their component vectors are
// copied out, and for small samples they are several times the data (320
// bytes a 4 × 3 sample at rank 1, whose values are 96), so a chunk of the
// 87,381 such rows a source hands over would hold 28 MB of them.
const cpBatch = 4096

// fitChunk is the number of rows of d values a fit factorises at a time:
// about 8 MiB of them (a chunk is held scaled, and densified too when the
// input is sparse), at least 16 (work for every core: each sample is a
// whole CP-ALS) and at most cpBatch. Base's chunks, at least 256 rows,
// were 205 MB at once for 50,000 columns.
func fitChunk(d int) int {
	return max(16, min(cpBatch, (8<<20)/(8*max(d, 1))))
}

// components factorises the training rows of f, a chunk at a time as the
// fit reads them (the scaled rows are never held whole), and returns
// their component vectors: the (n·R) × Σ I_n matrix whose row i·R + k is
// component k of sample i. It reports stage cp-als (samples done of n).
// The vectors are what the kernel compares, so they are what
// kernel.CheckRange judges: CP-ALS itself takes tensors of any finite
// values (cpd decomposes extreme ones at their own exponent), and a
// check of the rows cost a pass as long as the scale stage's.
func (r resolved) components(ctx context.Context, f *method.Fitting, name string) (*mat.Dense, error) {
	n, d := f.Dims()
	if err := tensor.CheckShape(r.shape, d); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err // before the (n·R) × Σ I_n allocation
	}
	F := mat.NewDense(max(n*r.rank, 1), r.dim, nil)
	err := f.Scan(ctx, fitChunk(d), func(lo int, X mat.Matrix) error {
		rows, _ := X.Dims()
		dst := F.Slice(lo*r.rank, (lo+rows)*r.rank, 0, r.dim).(*mat.Dense)
		if err := r.componentsInto(ctx, dst, X, func(done int) { f.Report("cp-als", lo+done, n) }); err != nil {
			return fmt.Errorf("%s: %w", name, offsetSample(err, lo))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := kernel.CheckRange(F); err != nil {
		return nil, fmt.Errorf("%s: the samples' CP component vectors: %w", name, err)
	}
	return F, nil
}

// componentVectors factorises the rows of X (samples of r.shape, at most
// a chunk of them: Score's) and returns their component vectors, as
// components does.
func (r resolved) componentVectors(ctx context.Context, X mat.Matrix) (*mat.Dense, error) {
	n, _ := X.Dims()
	F := mat.NewDense(max(n*r.rank, 1), r.dim, nil)
	for lo := 0; lo < n; lo += cpBatch {
		hi := min(n, lo+cpBatch)
		dst := F.Slice(lo*r.rank, hi*r.rank, 0, r.dim).(*mat.Dense)
		if err := r.componentsInto(ctx, dst, rowsOf(X, lo, hi), nil); err != nil {
			return nil, offsetSample(err, lo)
		}
	}
	return F, nil
}

// componentsInto factorises every row of X (a sample tensor of r.shape)
// and writes its R component vectors into rows i·R, …, i·R + R − 1 of
// dst: [s·a_k^(0); …; s·a_k^(N−1)] with s = λ_k^(1/N), the scale shared
// equally by the modes, so that Σ_n‖x^(n) − y^(n)‖² compares rank-one
// tensors of different norms (λ ≥ 0 and the sign convention of cpd make
// the vectors unique). progress, when set, hears the samples done.
func (r resolved) componentsInto(ctx context.Context, dst *mat.Dense, X mat.Matrix, progress func(done int)) error {
	cp := r.cp
	if progress != nil {
		cp.Progress = func(_ string, done, _ int) { progress(done) }
	}
	ks, err := cpd.DecomposeBatch(ctx, X, r.shape, cp)
	if err != nil {
		return err
	}
	R, N := r.rank, len(r.shape)
	for i, k := range ks {
		for c := range R {
			row := dst.RawRowView(i*R + c)
			s := math.Pow(k.Weights[c], 1/float64(N))
			off := 0
			for _, f := range k.Factors {
				raw := f.RawMatrix()
				for j := range raw.Rows {
					row[off+j] = s * raw.Data[j*raw.Stride+c]
				}
				off += raw.Rows
			}
		}
	}
	return nil
}

// offsetSample returns err, a *cpd.SampleError moved down by lo rows when
// it is one: the sample of a batch whose first row is row lo.
func offsetSample(err error, lo int) error {
	if se, ok := err.(*cpd.SampleError); ok {
		return &cpd.SampleError{Row: lo + se.Row, Err: se.Err}
	}
	return err
}

// rowsOf returns rows [lo, hi) of X: a view of a *mat.Dense, else a copy.
func rowsOf(X mat.Matrix, lo, hi int) mat.Matrix {
	if d, ok := X.(*mat.Dense); ok {
		_, c := d.Dims()
		return d.Slice(lo, hi, 0, c)
	}
	_, c := X.Dims()
	out := mat.NewDense(hi-lo, c, nil)
	for i := lo; i < hi; i++ {
		mat.Row(out.RawRowView(i-lo), i, X)
	}
	return out
}

// checkDim is the check every tensor model's Decode starts with: the
// model file's column count is the sample shape's size.
func (r resolved) checkDim(name string, dim int) error {
	if dim != r.d {
		return fmt.Errorf("%s: the model's %d columns are not samples of shape %s (%d values)", name, dim, tensor.FormatShape(r.shape), r.d)
	}
	return nil
}

// tensorBase is the part of 1STM and R1STM around the machine: the kit's
// Base, and the sample shape and rank resolved from Common, which the
// fit and the model factorise rows with. Its Score names the sample
// shape when rows have another length than the model's samples.
type tensorBase[M method.Model] struct {
	method.Base[M]
	r resolved
}

// SampleShape returns the sample shape the model takes.
func (t *tensorBase[M]) SampleShape() []int { return slices.Clone(t.r.shape) }

// Score writes the scores of the sample rows of X into dst (reused when
// its capacity is at least the number of rows) and returns the slice
// written; higher means more anomalous.
func (t *tensorBase[M]) Score(dst []float64, X mat.Matrix) ([]float64, error) {
	return t.ScoreContext(context.Background(), dst, X)
}

// ScoreContext is Score that returns ctx.Err() soon after ctx ends.
func (t *tensorBase[M]) ScoreContext(ctx context.Context, dst []float64, X mat.Matrix) ([]float64, error) {
	if err := t.shapeMismatch(X); err != nil {
		return nil, err
	}
	return t.Base.ScoreContext(ctx, dst, X)
}

// PredictContext scores X and labels each row against the threshold of
// the same model (1 = anomaly), as detector.Predict does.
func (t *tensorBase[M]) PredictContext(ctx context.Context, dst []int, X mat.Matrix) ([]int, error) {
	if err := t.shapeMismatch(X); err != nil {
		return nil, err
	}
	return t.Base.PredictContext(ctx, dst, X)
}

// shapeMismatch is the error for scoring rows of another length than the
// fitted samples: both a *detector.DimError and the *tensor.ShapeError
// naming the sample shape (errors.As finds either); nil when the length
// is right or the model is not fitted.
func (t *tensorBase[M]) shapeMismatch(X mat.Matrix) error {
	dim := t.Dim()
	if dim == 0 {
		return nil
	}
	if _, c := X.Dims(); c != dim {
		return fmt.Errorf("%s: %w (%w)", t.Method(), &detector.DimError{Got: c, Want: dim}, tensor.CheckShape(t.r.shape, c))
	}
	return nil
}
