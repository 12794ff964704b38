package stm

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/cpd"
	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/tensor"
)

// Defaults of the tensor detectors (see the package documentation for how
// they were chosen).
const (
	DefaultNu          = 0.5
	DefaultGammaFactor = 1.0
)

// Common holds the settings shared by 1STM and R1STM.
type Common struct {
	// Shape is the sample tensor shape; its product must equal the row
	// length of the data (required).
	Shape []int
	// Rank is the CP rank R of every sample; 0 means 1.
	Rank int
	// Gamma is the Gaussian width γ of eq. 4.18 on the factor vectors; 0
	// means the median rule: 1/median of Σ_n‖x^(n) − y^(n)‖² over pairs of
	// training component vectors (kernel.MedianGamma).
	Gamma float64
	// GammaFactor multiplies the median rule's γ when Gamma is 0; 0 means
	// DefaultGammaFactor.
	GammaFactor float64
	// Nu ∈ (0, 1] is the ν of the one-class machine; 0 means DefaultNu.
	Nu float64
	// Contamination sets the threshold; 0 means detector.DefaultContamination.
	Contamination float64
	// CPTol and CPMaxIter are the CP-ALS stopping rule (cpd.Config); 0 means
	// cpd's defaults (1e-8, 100).
	CPTol     float64
	CPMaxIter int
	// Src seeds every random choice (the median rule's pairs, random
	// features); nil means a fixed source (PCG 1, 2).
	Src rand.Source
	// Progress receives progress reports; nil means none.
	Progress detector.ProgressFunc
}

// resolved is Common with defaults filled in and validated.
type resolved struct {
	shape []int
	rank  int
	gamma float64
	gfac  float64
	nu    float64
	cont  float64
	cp    cpd.Config
	d     int // row length Π shape
	dim   int // Σ shape: length of one component vector
}

func (c Common) resolve(name string) (resolved, error) {
	var r resolved
	r.rank = c.Rank
	if r.rank == 0 {
		r.rank = 1
	}
	r.cp = cpd.Config{Rank: r.rank, Tol: c.CPTol, MaxIter: c.CPMaxIter}
	if r.rank < 1 {
		return r, fmt.Errorf("%s: %w", name, &cpd.RankError{Rank: r.rank})
	}
	if c.CPTol < 0 || math.IsNaN(c.CPTol) || c.CPMaxIter < 0 {
		return r, fmt.Errorf("%s: cp_tol and cp_max_iter must be ≥ 0", name)
	}
	// The shape may come later (the command line reads it from the data
	// file); Fit reports it missing.
	if len(c.Shape) > 0 {
		if err := validShape(c.Shape); err != nil {
			return r, fmt.Errorf("%s: %w", name, err)
		}
		if err := validateCP(r.cp, c.Shape); err != nil {
			return r, fmt.Errorf("%s: %w", name, err)
		}
		r.shape = append([]int(nil), c.Shape...)
		r.d, r.dim = 1, 0
		for _, s := range c.Shape {
			r.d *= s
			r.dim += s
		}
	}
	if c.Gamma < 0 || math.IsNaN(c.Gamma) || math.IsInf(c.Gamma, 0) {
		return r, fmt.Errorf("%s: gamma = %v must be a finite number > 0 (or 0 for the median rule)", name, c.Gamma)
	}
	r.gamma = c.Gamma
	r.gfac = c.GammaFactor
	if r.gfac == 0 {
		r.gfac = DefaultGammaFactor
	}
	if !(r.gfac > 0) || math.IsInf(r.gfac, 0) {
		return r, fmt.Errorf("%s: gamma_factor = %v must be a finite number > 0", name, c.GammaFactor)
	}
	r.nu = c.Nu
	if r.nu == 0 {
		r.nu = DefaultNu
	}
	if !(r.nu > 0 && r.nu <= 1) {
		return r, fmt.Errorf("%s: nu = %v is outside (0, 1]", name, c.Nu)
	}
	cont, err := detector.Contamination(c.Contamination)
	if err != nil {
		return r, fmt.Errorf("%s: %w", name, err)
	}
	r.cont = cont
	return r, nil
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
		return &cpd.RankError{Rank: cfg.Rank, Shape: shape}
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
func componentVectors(ctx context.Context, X mat.Matrix, r resolved) (*mat.Dense, error) {
	ks, err := cpd.DecomposeBatch(ctx, X, r.shape, r.cp)
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
