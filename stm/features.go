package stm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/cpd"
	"github.com/kernelad/anomaly/detector"
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
	// length of the data (required by Fit; the command line takes it from
	// N-d .npy/.npz files).
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
	// features); nil means PCG(1, 0x57a7).
	Src rand.Source
	// Common holds the contamination rate, the scale stage and the
	// progress callback.
	detector.Common
}

// SampleShape returns the sample shape, which the scale stage's channel
// rule reads (detector.Base).
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
	s.Seed(&c.Src, "seed", 1, func(seed uint64) rand.Source { return rand.NewPCG(seed, 0x57a7) }, "seed of the median rule's pairs and the random features")
}

// resolved is what Fit and Score derive from a resolved Common.
type resolved struct {
	shape []int
	rank  int
	cp    cpd.Config
	d     int // row length Π shape
	dim   int // Σ shape: length of one component vector
}

// resolve derives the CP settings and sizes from c, whose fields hold
// their defaults (detector.NewBase resolved them). A rank the shape cannot
// take is a parameter error.
func (c *Common) resolve(name string) (resolved, error) {
	r := resolved{rank: c.Rank, cp: cpd.Config{Rank: c.Rank, Tol: c.CPTol, MaxIter: c.CPMaxIter}}
	if len(c.Shape) == 0 {
		return r, nil
	}
	if err := validShape(c.Shape); err != nil {
		return r, &param.Error{Method: name, Name: "shape", Value: tensor.FormatShape(c.Shape), Reason: err.Error()}
	}
	if err := validateCP(r.cp, c.Shape); err != nil {
		return r, &param.Error{Method: name, Name: "rank", Value: fmt.Sprint(c.Rank), Reason: err.Error()}
	}
	r.shape = append([]int(nil), c.Shape...)
	r.d, r.dim = 1, 0
	for _, s := range c.Shape {
		r.d *= s
		r.dim += s
	}
	return r, nil
}

// tensorModel is the part of 1STM and R1STM around the machine: the Base,
// the sample shape and rank resolved from Common, and the CP factorisation
// of the samples into component vectors that the machine sees.
type tensorModel struct {
	detector.Base
	r resolved
}

// newTensorModel resolves cfg, whose Common is c, for the named method: the
// Base (defaults and ranges), then the sample shape and rank.
func newTensorModel(name string, cfg detector.Config, c *Common) (tensorModel, error) {
	b, err := detector.NewBase(name, cfg)
	if err != nil {
		return tensorModel{}, err
	}
	r, err := c.resolve(name)
	if err != nil {
		return tensorModel{}, err
	}
	return tensorModel{Base: b, r: r}, nil
}

// SampleShape returns the sample shape the model takes.
func (t *tensorModel) SampleShape() []int { return append([]int(nil), t.r.shape...) }

// fitComponents checks the (scaled) training rows of X against the sample
// shape and the kernel's range and returns their component vectors.
func (t *tensorModel) fitComponents(ctx context.Context, X mat.Matrix, progress detector.ProgressFunc) (*mat.Dense, error) {
	name := t.Method()
	if err := checkTensorRows(X, t.r, name); err != nil {
		return nil, err
	}
	if err := kernel.CheckRange(X); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	F, err := componentVectors(ctx, X, t.r, progress)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return F, nil
}

// scoreComponents is Score of a tensor method: rows of another length than
// the fitted samples are an error naming the shape, then Base's checks and
// scale stage, then score writes the scores of the samples whose component
// vectors are the rows of F (R consecutive rows a sample) into dst, sized.
func (t *tensorModel) scoreComponents(dst []float64, X mat.Matrix, score func(dst []float64, F *mat.Dense) []float64) ([]float64, error) {
	if err := shapeMismatch(t.Fitted(), X, t.r, t.Method()); err != nil {
		return nil, err
	}
	return t.ScoreWith(dst, X, func(dst []float64, X mat.Matrix) ([]float64, error) {
		F, err := componentVectors(context.Background(), X, t.r, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Method(), err)
		}
		return score(dst, F), nil
	})
}

// checkTensorRows checks X's row length against the sample shape (a
// *tensor.ShapeError naming both when they differ); detector.Base has
// checked the values and, when scoring, the column count.
func checkTensorRows(X mat.Matrix, r resolved, name string) error {
	if r.shape == nil {
		return &param.Error{Method: name, Name: "shape", Reason: "the sample shape is required (shape=24x51 on the command line; taken from N-d .npy/.npz files)"}
	}
	_, c := X.Dims()
	if err := tensor.CheckShape(r.shape, c); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// shapeMismatch is the error for scoring rows of another length than the
// fitted samples: both a *detector.DimError and the *tensor.ShapeError
// naming the sample shape (errors.As finds either); nil when the length is
// right or the model is not fitted.
func shapeMismatch(fitted bool, X mat.Matrix, r resolved, name string) error {
	if !fitted || r.shape == nil {
		return nil
	}
	_, c := X.Dims()
	if c == r.d {
		return nil
	}
	return fmt.Errorf("%s: %w (%w)", name, &detector.DimError{Got: c, Want: r.d}, tensor.CheckShape(r.shape, c))
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

// validShape checks a sample shape: sides ≥ 1, order ≥ 2.
func validShape(shape []int) error {
	p := 1
	for _, s := range shape {
		if s < 1 {
			return tensor.CheckShape(shape, 0)
		}
		p *= s
	}
	if len(shape) < 2 {
		return fmt.Errorf("the sample shape %s has order 1; tensor methods need order ≥ 2 (use a vector method)", tensor.FormatShape(shape))
	}
	return nil
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

// componentVectors factorises every row of X (a sample tensor of r.shape)
// and returns the (n·R) × Σ I_n matrix whose row i·R + k is component k of
// sample i, [s·a_k^(0); …; s·a_k^(N−1)] with s = λ_k^(1/N): the scale is
// shared equally by the modes, so that Σ_n‖x^(n) − y^(n)‖² compares
// rank-one tensors of different norms (λ ≥ 0 and the sign convention of
// cpd make the vectors unique).
func componentVectors(ctx context.Context, X mat.Matrix, r resolved, progress detector.ProgressFunc) (*mat.Dense, error) {
	cp := r.cp
	cp.Progress = progress
	ks, err := cpd.DecomposeBatch(ctx, X, r.shape, cp)
	if err != nil {
		return nil, err
	}
	n := len(ks)
	R, N := r.rank, len(r.shape)
	F := mat.NewDense(n*R, r.dim, nil)
	for i, k := range ks {
		for c := range R {
			row := F.RawRowView(i*R + c)
			s := math.Pow(k.Weights[c], 1/float64(N))
			off := 0
			for _, f := range k.Factors {
				rows, _ := f.Dims()
				for j := range rows {
					row[off+j] = s * f.At(j, c)
				}
				off += rows
			}
		}
	}
	return F, nil
}
