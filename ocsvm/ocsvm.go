package ocsvm

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/detector/method/oneclass"
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
	// Common holds the contamination rate, the scale stage, the sample
	// and the progress callback.
	method.Common
}

// Bind declares the parameters of the one-class SVM.
func (c *Config) Bind(s *param.Set) {
	s.Float(&c.Nu, "nu", DefaultNu, param.Interval(0, 1, true, false), "upper bound on the training outlier fraction, lower bound on the support-vector fraction")
	c.Kernel.Bind(s, kernel.Choices{Kinds: []string{"rbf", "laplacian", "poly", "linear", "precomputed"}, Rules: []string{kernel.ScaleScottRule, kernel.ScaleRule, kernel.MedianRule}, PolyParams: true})
	c.Solver.Bind(s)
}

// Stats describes a fit.
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
	method.Base[*model]
	cfg Config
}

// model is a fitted one-class SVM: the kernel expansion over the support
// vectors, or with the precomputed kernel their training indices, and ρ.
// It is never changed once built.
type model struct {
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
	precomp := cfg.Kernel.Kind == "precomputed"
	if precomp {
		if cfg.Scale != "" && cfg.Scale != scale.None {
			return nil, &param.Error{Method: "ocsvm", Name: "scale", Value: cfg.Scale, Reason: "a precomputed kernel matrix cannot be scaled; use scale=none"}
		}
		cfg.Scale = scale.None
	}
	m := &OCSVM{cfg: cfg}
	// The training scores are ρ − the solver's gradient (Settle); a
	// precomputed kernel matrix is read as dense rows (Densify), the other
	// kernels keep sparse rows sparse.
	return method.Init(m, &m.Base, "ocsvm", &m.cfg, method.Hooks[*model]{Fit: m.fit, Decode: m.decode, Settle: true, Densify: precomp})
}

// Config returns the resolved configuration.
func (m *OCSVM) Config() Config { return m.cfg }

// Fit trains on the rows of X (or, with the precomputed kernel, on the
// n × n kernel matrix X).
func (m *OCSVM) Fit(ctx context.Context, X mat.Matrix) error { return m.Base.Fit(ctx, X) }

// fit solves the dual on every training row (in memory: the solver's
// kernel matrix holds them, and the model keeps its support vectors).
func (m *OCSVM) fit(ctx context.Context, f *method.Fitting) (*model, []float64, error) {
	X, err := f.Matrix(ctx)
	if err != nil {
		return nil, nil, err
	}
	n, _ := f.Dims()
	md := &model{precomp: m.cfg.Kernel.Kind == "precomputed", nTrain: n}
	var (
		q     smo.Matrix
		k     kernel.Kernel
		gamma float64
	)
	if md.precomp {
		if err := checkGram(ctx, X, f.Report); err != nil {
			return nil, nil, fmt.Errorf("ocsvm: %w", err)
		}
		q = smo.NewGramMatrix(X, nil, 1)
	} else {
		if k, gamma, err = oneclass.FitKernel(m.cfg.Kernel, X, f.Sparse() && m.cfg.Scale == scale.Standardize); err != nil {
			return nil, nil, fmt.Errorf("ocsvm: %w", err)
		}
		q = smo.NewKernelMatrix(k, X, nil, 1)
	}
	set := m.cfg.Solver
	set.Progress = f.Report
	sol, train, err := oneclass.Nu(ctx, q, m.cfg.Nu, set)
	if err != nil {
		return nil, nil, fmt.Errorf("ocsvm: %w", err)
	}
	if !md.precomp {
		// After the solve, which hears ctx: the check reads up to 2·10⁷
		// values without it (20–40 ms; ten times that under the race
		// detector), and a fit cancelled early then returns at once.
		f.CautionIsolating(m.cfg.Kernel.Kind, X, gamma)
	}
	if sol.Stats.Status == smo.IterationLimit {
		f.CautionIterationLimit(sol.Stats.Iterations, "iterations", "max_iter; 0 is LIBSVM's limit, max(10⁷, 100n)")
	}
	md.rho = sol.Rho
	md.stats = Stats{Stats: sol.Stats, Rho: sol.Rho, Gamma: gamma}
	if md.precomp {
		for i, a := range sol.Alpha {
			if a > 0 {
				md.svIndex = append(md.svIndex, i)
				md.svCoef = append(md.svCoef, a)
			}
		}
	} else {
		md.exp = smo.NewExpansion(k, X, sol.Alpha)
	}
	return md, train, nil
}

// Score writes ρ − Σ α_i k(x_i, x) for each row x of X into dst: positive
// outside the learned region, so higher is more anomalous. With the
// precomputed kernel, X is the m × n matrix k(x, x_train).
func (m *OCSVM) Score(dst []float64, X mat.Matrix) ([]float64, error) { return m.Base.Score(dst, X) }

// Score writes the scores of the rows of X into dst: the expansion on
// every core (smo.Expansion.EvalContext), or with the precomputed kernel
// the support vectors' columns of each row, a block of rows at a time;
// ctx is checked between blocks.
func (md *model) Score(ctx context.Context, dst []float64, X mat.Matrix) error {
	if md.precomp {
		return md.scorePrecomputed(ctx, dst, X)
	}
	if _, err := md.exp.EvalContext(ctx, dst, X); err != nil {
		return err
	}
	for i, v := range dst {
		dst[i] = md.rho - v
	}
	return nil
}

// precompBlock is the number of kernel values scorePrecomputed reads
// between two checks of the context.
const precompBlock = 1 << 20

// scorePrecomputed scores the rows of the m × n kernel matrix X (dense:
// Hooks.Densify densified a sparse one).
func (md *model) scorePrecomputed(ctx context.Context, dst []float64, X mat.Matrix) error {
	r, _ := X.Dims()
	rv, raw := X.(mat.RawRowViewer)
	block := max(1, precompBlock/max(1, len(md.svIndex)))
	for lo := 0; lo < r; lo += block {
		if err := ctx.Err(); err != nil {
			return err
		}
		for i := lo; i < min(r, lo+block); i++ {
			var s float64
			if raw {
				row := rv.RawRowView(i)
				for k, j := range md.svIndex {
					s += md.svCoef[k] * row[j]
				}
			} else {
				for k, j := range md.svIndex {
					s += md.svCoef[k] * X.At(i, j)
				}
			}
			dst[i] = md.rho - s
		}
	}
	return nil
}

// Stats returns the statistics of the fit (the zero Stats before Fit).
func (m *OCSVM) Stats() Stats {
	if md, ok := m.Model(); ok {
		return md.stats
	}
	return Stats{}
}

// Rho returns ρ of the Σα = 1 form (0 before Fit).
func (m *OCSVM) Rho() float64 {
	if md, ok := m.Model(); ok {
		return md.rho
	}
	return 0
}

// SupportVectors returns the number of support vectors kept (0 before
// Fit).
func (m *OCSVM) SupportVectors() int {
	md, ok := m.Model()
	switch {
	case !ok:
		return 0
	case md.precomp:
		return len(md.svIndex)
	}
	return md.exp.Len()
}

// Coef returns the dual coefficients α_i of the kept support vectors (they
// sum to 1), a copy; nil before Fit.
func (m *OCSVM) Coef() []float64 {
	md, ok := m.Model()
	switch {
	case !ok:
		return nil
	case md.precomp:
		return append([]float64(nil), md.svCoef...)
	}
	return append([]float64(nil), md.exp.Coef...)
}

// state is the saved form of a fitted model (the kernel's kind and
// polynomial settings are in the saved parameters). Its fields are the
// file format of version 2.
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
func (md *model) MarshalBinary() ([]byte, error) {
	s := state{NTrain: md.nTrain, Rho: md.rho, Stats: md.stats}
	if md.precomp {
		s.SVIndex, s.SVCoef = md.svIndex, md.svCoef
	} else {
		s.Exp = oneclass.Save(md.exp, md.stats.Gamma)
	}
	return method.EncodeState("ocsvm", s)
}

// decode decodes a model written by MarshalBinary for dim columns,
// validating it: the support vectors' sizes (oneclass.Restore, without
// products that can wrap) and values, positive finite coefficients and ρ,
// and their width against dim (with the precomputed kernel, the indices
// against the training rows, which are the columns of the kernel rows
// scored).
func (m *OCSVM) decode(data []byte, dim int) (*model, error) {
	var s state
	if err := method.DecodeState("ocsvm", data, &s); err != nil {
		return nil, err
	}
	bad := func(what string) error { return fmt.Errorf("ocsvm: invalid model: %s", what) }
	if s.NTrain <= 0 || math.IsNaN(s.Rho) || math.IsInf(s.Rho, 0) {
		return nil, bad("sizes or rho")
	}
	md := &model{precomp: m.cfg.Kernel.Kind == "precomputed", nTrain: s.NTrain, rho: s.Rho, stats: s.Stats}
	if md.precomp {
		if len(s.SVIndex) == 0 || len(s.SVIndex) != len(s.SVCoef) || len(s.SVIndex) > s.NTrain {
			return nil, bad("support vector indices")
		}
		for k, j := range s.SVIndex {
			if j < 0 || j >= s.NTrain || !(s.SVCoef[k] > 0) || math.IsInf(s.SVCoef[k], 0) {
				return nil, bad("support vector index or coefficient out of range")
			}
		}
		if s.NTrain != dim { // kernel rows against the training rows
			return nil, fmt.Errorf("ocsvm: the state is for kernel rows of %d training rows, the model's shared state for %d columns", s.NTrain, dim)
		}
		md.svIndex, md.svCoef = s.SVIndex, s.SVCoef
		return md, nil
	}
	e, err := oneclass.Restore(s.Exp, m.cfg.Kernel)
	if err != nil {
		return nil, bad(err.Error())
	}
	for _, c := range e.Coef {
		if c < 0 {
			return nil, bad("negative coefficient")
		}
	}
	if e.D != dim {
		return nil, fmt.Errorf("ocsvm: the state is for %d columns, the model's shared state for %d", e.D, dim)
	}
	md.exp = e
	return md, nil
}

func init() {
	method.Register(method.Info{
		Name:    "ocsvm",
		Summary: "Schölkopf's ν one-class SVM (kernel dual solved by the smo package); score ρ − Σα_i k(x_i, x)",
		Version: 2,
	}, New, memory)
}

// memory estimates the peak bytes of a fit or a score (oneclass.Memory:
// the scaled copy of the rows, the kernel matrix's copy, the column
// cache; scoring, the expansion's work). With the precomputed kernel the
// fit factorises a copy of the n × n kernel matrix once (checkGram) and
// the solver reads the matrix itself; a sparse kernel matrix is
// densified, whole for the fit and a chunk at a time for a score
// (Hooks.Densify).
func memory(m *OCSVM, op method.Op, s method.Size) float64 {
	if m.cfg.Kernel.Kind != "precomputed" {
		return oneclass.Memory(op, s, m.cfg.Solver.CacheMB, m.SupportVectors(), m.cfg.Scale != scale.None)
	}
	n, cols := float64(s.Rows), float64(s.Cols)
	var dense float64
	if s.Sparse {
		dense = 8 * n * cols
	}
	if op == method.ScoreOp {
		return 8*n + min(dense, 8*float64(method.ChunkRows(s.Cols))*cols)
	}
	return dense + 8*n*n + oneclass.Memory(op, method.Size{Rows: s.Rows}, m.cfg.Solver.CacheMB, 0, false)
}
