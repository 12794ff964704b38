package ocsvm

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/oneclass"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/param"
	"github.com/kernelad/anomaly/scale"
	"github.com/kernelad/anomaly/smo"
)

// DefaultNu is ν when Config.Nu is 0, chosen by make defaults (the
// selection protocol in the README): on standardised features with
// γ = scale, ν = 0.9 ranked first of the label-free candidates, and again
// with the later width rule γ = scale_scott, the default.
const DefaultNu = 0.9

// Config configures a one-class SVM. The zero value is the default.
type Config struct {
	// Nu ∈ (0, 1] bounds the fraction of training outliers from above and
	// the fraction of support vectors from below; 0 means DefaultNu.
	Nu float64
	// Kernel is the kernel: rbf (default), laplacian, poly, linear or
	// precomputed, with the width rule scale_scott (default), scale or
	// median. With
	// precomputed, Fit takes the n × n kernel matrix of the training rows
	// and Score the m × n matrix k(x_test, x_train), and the scale stage
	// is off.
	Kernel kernel.Spec
	// Solver holds the solver's settings: tolerance (0 → 1e-3),
	// column-cache budget (0 → 200 MB), shrinking, iteration limit
	// (0 → LIBSVM's).
	Solver smo.Settings
	// Common holds the contamination rate, the scale stage and the
	// progress callback.
	detector.Common
}

// Bind declares the parameters of the one-class SVM.
func (c *Config) Bind(s *param.Set) {
	s.Float(&c.Nu, "nu", DefaultNu, param.Interval(0, 1, true, false), "upper bound on the training outlier fraction, lower bound on the support-vector fraction")
	c.Kernel.Bind(s, kernel.Choices{Kinds: []string{"rbf", "laplacian", "poly", "linear", "precomputed"}, Rules: []string{kernel.ScaleScottRule, kernel.ScaleRule, kernel.MedianRule}, PolyParams: true})
	c.Solver.Bind(s)
}

// Stats describes the last fit.
type Stats struct {
	// Iterations, Status, Objective (½αᵀKα), SV and BoundedSV (α_i at the
	// upper bound 1/(νn)) and the cache figures are the solver's, in the
	// Σα = 1 form. LIBSVM reports the Σα = νn form: its objective is
	// (νn)² Objective and its ρ is νn·Rho.
	oneclass.Stats
	// Rho is ρ and Gamma the kernel width used (after resolving its rule).
	Rho, Gamma float64
}

// OCSVM is Schölkopf's ν one-class support vector machine.
type OCSVM struct {
	detector.Base
	cfg Config

	precomp bool
	exp     *smo.Expansion // non-precomputed kernels
	svIndex []int          // precomputed: training columns of the SVs
	svCoef  []float64      // precomputed: their α
	nTrain  int
	rho     float64
	stats   Stats
}

var _ detector.Detector = (*OCSVM)(nil)

// New validates cfg and returns an unfitted one-class SVM.
func New(cfg Config) (*OCSVM, error) {
	if cfg.Kernel.Kind == "precomputed" {
		if cfg.Scale != "" && cfg.Scale != scale.None {
			return nil, &param.Error{Method: "ocsvm", Name: "scale", Value: cfg.Scale, Reason: "a precomputed kernel matrix cannot be scaled; use scale=none"}
		}
		cfg.Scale = scale.None
	}
	b, err := detector.NewBase("ocsvm", &cfg)
	if err != nil {
		return nil, err
	}
	m := &OCSVM{Base: b, cfg: cfg, precomp: cfg.Kernel.Kind == "precomputed"}
	m.SettleTiesWith(m.score) // the training scores are ρ − the solver's gradient
	return m, nil
}

// Config returns the resolved configuration.
func (m *OCSVM) Config() Config { return m.cfg }

// Fit trains on the rows of X (or, with the precomputed kernel, on the
// n × n kernel matrix X).
func (m *OCSVM) Fit(ctx context.Context, X mat.Matrix) error {
	return m.FitWith(ctx, X, m.fit)
}

func (m *OCSVM) fit(ctx context.Context, X mat.Matrix) ([]float64, error) {
	n, _ := X.Dims()
	var (
		q     smo.Matrix
		k     kernel.Kernel
		gamma float64
	)
	if m.precomp {
		if err := CheckGram(X); err != nil {
			return nil, fmt.Errorf("ocsvm: %w", err)
		}
		q = smo.NewGramMatrix(X, nil, 1)
	} else {
		var err error
		if k, gamma, err = m.cfg.Kernel.Fit(X, nil); err != nil {
			return nil, fmt.Errorf("ocsvm: %w", err)
		}
		m.CautionIsolating(m.cfg.Kernel.Kind, X, gamma)
		q = smo.NewKernelMatrix(k, X, nil, 1)
	}
	set := m.cfg.Solver
	set.Progress = m.cfg.Progress
	sol, train, err := oneclass.Nu(ctx, q, m.cfg.Nu, set)
	if err != nil {
		return nil, fmt.Errorf("ocsvm: %w", err)
	}
	if sol.Stats.Status == smo.IterationLimit {
		m.CautionIterationLimit(sol.Stats.Iterations, "iterations", "max_iter; 0 is LIBSVM's limit, max(10⁷, 100n)")
	}
	m.nTrain, m.rho = n, sol.Rho
	m.stats = Stats{Stats: sol.Stats, Rho: sol.Rho, Gamma: gamma}
	m.exp, m.svIndex, m.svCoef = nil, nil, nil
	if m.precomp {
		for i, a := range sol.Alpha {
			if a > 0 {
				m.svIndex = append(m.svIndex, i)
				m.svCoef = append(m.svCoef, a)
			}
		}
	} else {
		m.exp = smo.NewExpansion(k, X, sol.Alpha)
	}
	return train, nil
}

// CheckGram returns an error unless K is a square, symmetric, positive
// semi-definite matrix (smallest eigenvalue ≥ −1e-8 times the largest in
// magnitude). It costs O(n³).
func CheckGram(K mat.Matrix) error {
	n, c := K.Dims()
	if n != c {
		return fmt.Errorf("precomputed kernel must be square, got %d × %d", n, c)
	}
	sym := mat.NewSymDense(n, nil)
	var scale float64
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			a, b := K.At(i, j), K.At(j, i)
			scale = math.Max(scale, math.Abs(a))
			if math.Abs(a-b) > 1e-10*math.Max(1, math.Max(math.Abs(a), math.Abs(b))) {
				return fmt.Errorf("precomputed kernel is not symmetric: K[%d][%d] = %v, K[%d][%d] = %v", i, j, a, j, i, b)
			}
			sym.SetSym(i, j, a)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, false) {
		return errors.New("precomputed kernel: eigenvalue decomposition failed")
	}
	vals := eig.Values(nil)
	lo, hi := vals[0], math.Max(math.Abs(vals[0]), math.Abs(vals[len(vals)-1]))
	if lo < -1e-8*math.Max(hi, scale) {
		return fmt.Errorf("precomputed kernel: %w: smallest eigenvalue %.6g < 0", smo.ErrNotPSD, lo)
	}
	return nil
}

// Score writes ρ − Σ α_i k(x_i, x) for each row x of X into dst: positive
// outside the learned region, so higher is more anomalous. With the
// precomputed kernel, X is the m × n matrix k(x, x_train).
func (m *OCSVM) Score(dst []float64, X mat.Matrix) ([]float64, error) {
	return m.ScoreWith(dst, X, m.score)
}

func (m *OCSVM) score(dst []float64, X mat.Matrix) ([]float64, error) {
	r, _ := X.Dims()
	dst = detector.ScoreDst(dst, r)
	if m.precomp {
		for i := 0; i < r; i++ {
			var s float64
			for k, j := range m.svIndex {
				s += m.svCoef[k] * X.At(i, j)
			}
			dst[i] = m.rho - s
		}
		return dst, nil
	}
	m.exp.Eval(dst, X)
	for i, v := range dst {
		dst[i] = m.rho - v
	}
	return dst, nil
}

// Stats returns the statistics of the last fit.
func (m *OCSVM) Stats() Stats { return m.stats }

// Rho returns ρ of the Σα = 1 form.
func (m *OCSVM) Rho() float64 { return m.rho }

// SupportVectors returns the number of support vectors kept.
func (m *OCSVM) SupportVectors() int {
	if m.precomp {
		return len(m.svIndex)
	}
	if m.exp == nil {
		return 0
	}
	return m.exp.Len()
}

// Coef returns the dual coefficients α_i of the kept support vectors (they
// sum to 1).
func (m *OCSVM) Coef() []float64 {
	if m.precomp {
		return append([]float64(nil), m.svCoef...)
	}
	if m.exp == nil {
		return nil
	}
	return append([]float64(nil), m.exp.Coef...)
}

// state is the saved form of a fitted model (the kernel's kind and
// polynomial settings are in the saved parameters).
type state struct {
	NTrain  int
	Exp     oneclass.State // non-precomputed kernels
	SVIndex []int          // precomputed
	SVCoef  []float64      // precomputed
	Rho     float64
	Stats   Stats
}

// MarshalBinary encodes the fitted model: support vectors (or, with the
// precomputed kernel, their training indices), coefficients, γ and ρ.
func (m *OCSVM) MarshalBinary() ([]byte, error) {
	if !m.Fitted() {
		return nil, detector.ErrNotFitted
	}
	s := state{NTrain: m.nTrain, Rho: m.rho, Stats: m.stats}
	if m.precomp {
		s.SVIndex, s.SVCoef = m.svIndex, m.svCoef
	} else {
		s.Exp = oneclass.Save(m.exp, m.stats.Gamma)
	}
	return detector.EncodeState("ocsvm", s)
}

// UnmarshalBinary decodes a model written by MarshalBinary into a detector
// built with the parameters saved beside it, validating it.
func (m *OCSVM) UnmarshalBinary(data []byte) error {
	var s state
	if err := detector.DecodeState("ocsvm", data, &s); err != nil {
		return err
	}
	bad := func(what string) error { return fmt.Errorf("ocsvm: invalid model: %s", what) }
	if s.NTrain <= 0 || math.IsNaN(s.Rho) || math.IsInf(s.Rho, 0) {
		return bad("sizes or rho")
	}
	if m.precomp {
		if len(s.SVIndex) == 0 || len(s.SVIndex) != len(s.SVCoef) {
			return bad("support vector indices")
		}
		for k, j := range s.SVIndex {
			if j < 0 || j >= s.NTrain || !(s.SVCoef[k] > 0) || math.IsInf(s.SVCoef[k], 0) {
				return bad("support vector index or coefficient out of range")
			}
		}
		if err := m.CheckStateDim(s.NTrain); err != nil { // kernel rows against the training rows
			return err
		}
		m.svIndex, m.svCoef, m.exp = s.SVIndex, s.SVCoef, nil
	} else {
		e, err := oneclass.Restore(s.Exp, m.cfg.Kernel)
		if err != nil {
			return bad(err.Error())
		}
		for _, c := range e.Coef {
			if c < 0 {
				return bad("negative coefficient")
			}
		}
		if err := m.CheckStateDim(e.D); err != nil {
			return err
		}
		m.exp, m.svIndex, m.svCoef = e, nil, nil
	}
	m.nTrain, m.rho, m.stats = s.NTrain, s.Rho, s.Stats
	return nil
}

func init() {
	detector.RegisterLegacy(detector.Info{
		Name:    "ocsvm",
		Summary: "Schölkopf's ν one-class SVM (kernel dual solved by the smo package); score ρ − Σα_i k(x_i, x)",
		Version: 2,
	}, New, memory)
}

// memory estimates the peak bytes of a fit or a score (oneclass.Memory:
// the rows, or their non-zeros when sparse, twice; the column cache).
func memory(m *OCSVM, op detector.Op, s detector.Size) float64 {
	return oneclass.Memory(op, s, m.cfg.Solver.CacheMB, m.SupportVectors())
}
