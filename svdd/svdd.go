package svdd

import (
	"context"
	"fmt"
	"math"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/detector/method/oneclass"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/param"
	"github.com/kernelad/anomaly/scale"
	"github.com/kernelad/anomaly/smo"
)

// DefaultNu is ν when neither C nor Nu is set, chosen by make defaults
// as the one-class SVM's (with the RBF kernel the two duals coincide).
const DefaultNu = 0.9

// Config configures SVDD. The zero value is the default (ν = DefaultNu, RBF
// kernel with gamma = scale_scott).
type Config struct {
	// C is the bound on each α_i of the normal (and unlabeled) rows; it must
	// be ≥ 1/n. Set C or Nu, not both; with neither, Nu = DefaultNu.
	C float64
	// Nu ∈ (0, 1] sets C = 1/(νn): ν bounds the fraction of training rows
	// outside the sphere from above and of support vectors from below.
	Nu float64
	// CAnomaly is the bound on the α_l of labelled anomalies in FitLabeled;
	// 0 means the same C as the normal rows.
	CAnomaly float64
	// Kernel is rbf (default), laplacian, poly or linear, with the width
	// rule scale_scott (default), scale or median.
	Kernel kernel.Spec
	// Solver holds the solver's settings (tolerance, cache, shrinking,
	// iteration limit).
	Solver smo.Settings
	// Common holds the contamination rate, the scale stage, the sample
	// and the progress callback.
	method.Common
}

// Bind declares the parameters of SVDD. nu's default applies only when C
// is not set.
func (c *Config) Bind(s *param.Set) {
	if c.C == 0 {
		s.Float(&c.Nu, "nu", DefaultNu, param.Interval(0, 1, true, false), "C = 1/(nu·n): upper bound on the training outlier fraction (instead of c)")
	} else {
		s.OptionalFloat(&c.Nu, "nu", param.Interval(0, 1, true, false), "C = 1/(nu·n): upper bound on the training outlier fraction (instead of c)")
	}
	s.OptionalFloat(&c.C, "c", param.Above(0), "bound C ≥ 1/n on each α (instead of nu); unset: from nu")
	s.OptionalFloat(&c.CAnomaly, "c_anomaly", param.Above(0), "bound on the α of labelled anomalies (fit --labeled); unset: C")
	c.Kernel.Bind(s, kernel.Choices{Kinds: []string{"rbf", "laplacian", "poly", "linear"}, Rules: []string{kernel.ScaleScottRule, kernel.ScaleRule, kernel.MedianRule}, PolyParams: true})
	c.Solver.Bind(s)
}

// Stats describes a fit.
type Stats struct {
	// Iterations, Status, SV, BoundedSV (α_i at their bound) and the cache
	// figures are the solver's. Objective is the dual objective
	// αᵀ(yyᵀ∘K)α − Σ y_i α_i K_ii (the negative of (21) of lecture 001) at
	// the solution.
	oneclass.Stats
	// R2 is the squared radius and C2 the squared norm ‖c‖² of the centre.
	R2, C2 float64
	// Labeled is the number of labelled anomalies used (FitLabeled).
	Labeled int
	// C is the bound used for the normal rows, Gamma the kernel width.
	C, Gamma float64
}

// SVDD is support vector data description with the kernel trick.
type SVDD struct {
	method.Base[*model]
	cfg Config
}

// model is a fitted SVDD: the expansion Σ y_i α_i k(x_i, ·) over the
// support vectors and ‖c‖² − R². It is never changed once built.
type model struct {
	k     kernel.Kernel
	exp   *smo.Expansion
	gap   float64 // ‖c‖² − R²
	stats Stats
}

var (
	_ detector.Detector      = (*SVDD)(nil)
	_ detector.LabeledFitter = (*SVDD)(nil)
)

// New validates cfg and returns an unfitted SVDD.
func New(cfg Config) (*SVDD, error) {
	if cfg.C != 0 && cfg.Nu != 0 {
		return nil, &param.Error{Method: "svdd", Name: "c", Value: fmt.Sprint(cfg.C), Reason: fmt.Sprintf("set c or nu (%v), not both", cfg.Nu)}
	}
	m := &SVDD{cfg: cfg}
	// The training scores come from the solver's gradient (Settle); sparse
	// rows stay sparse.
	return method.Init(m, &m.Base, "svdd", &m.cfg, method.Hooks[*model]{Fit: m.fitUnlabeled, Decode: m.decode, Settle: true})
}

// Config returns the resolved configuration.
func (m *SVDD) Config() Config { return m.cfg }

// Fit trains on the rows of X, all taken as normal.
func (m *SVDD) Fit(ctx context.Context, X mat.Matrix) error { return m.Base.Fit(ctx, X) }

// FitLabeled trains with labelled anomalies (Tax & Duin's SVDD with negative
// examples): y[i] = 1 marks a known anomaly, which the sphere is pushed to
// exclude; 0 (normal) and −1 (unlabeled) rows are described by the sphere.
// y may be nil (then it is Fit).
func (m *SVDD) FitLabeled(ctx context.Context, X mat.Matrix, y []int) error {
	if y == nil {
		return m.Fit(ctx, X)
	}
	for i, v := range y {
		if v != 1 && v != 0 && v != -1 {
			return fmt.Errorf("svdd: label y[%d] = %d, want 1 (anomaly), 0 (normal) or −1 (unlabeled)", i, v)
		}
	}
	return m.FitLabeledWith(ctx, X, y, func(ctx context.Context, f *method.Fitting, y []int) (*model, []float64, error) {
		lab := make([]int8, len(y)) // the labels of the rows fitted (a sample's, with --sample)
		for i, v := range y {
			lab[i] = 1
			if v == 1 {
				lab[i] = -1
			}
		}
		return m.fit(ctx, f, lab)
	})
}

func (m *SVDD) fitUnlabeled(ctx context.Context, f *method.Fitting) (*model, []float64, error) {
	return m.fit(ctx, f, nil)
}

// fit solves the dual on every training row with labels ys (nil: all
// normal; −1 marks a labelled anomaly) and returns the model and the
// training scores.
func (m *SVDD) fit(ctx context.Context, f *method.Fitting, ys []int8) (*model, []float64, error) {
	n, _ := f.Dims()
	nt, na := n, 0
	if ys != nil {
		for _, v := range ys {
			if v < 0 {
				na++
			}
		}
		nt -= na
		if na == 0 {
			ys = nil
		}
	}
	if nt == 0 {
		return nil, nil, fmt.Errorf("svdd: every row is labelled an anomaly; the sphere needs normal or unlabeled rows")
	}
	cNormal := m.cfg.C
	if cNormal == 0 {
		cNormal = 1 / (m.cfg.Nu * float64(nt))
	}
	if cNormal*float64(nt) < 1-1e-12 {
		// Only a given C can be below 1/n (ν ≤ 1 gives C ≥ 1/n): the
		// parameter's error, which the data shows.
		return nil, nil, &param.Error{Method: "svdd", Name: "c", Value: fmt.Sprint(m.cfg.C),
			Reason: fmt.Sprintf("C < 1/n = %v (n = %d normal or unlabeled training rows): no α with Σα = 1 and α_i ≤ C exists; use C ≥ 1/n, or nu", 1/float64(nt), nt)}
	}
	cAnomaly := m.cfg.CAnomaly
	if cAnomaly == 0 {
		cAnomaly = cNormal
	}
	if ys == nil && cNormal > 1 {
		// Σα = 1 with α ≥ 0 already gives α_i ≤ 1: a larger C is the hard
		// sphere, and solving it as C = 1 keeps the tolerance's scale.
		cNormal = 1
	}
	X, err := f.Matrix(ctx)
	if err != nil {
		return nil, nil, err
	}
	k, gamma, err := oneclass.FitKernel(m.cfg.Kernel, X, f.Sparse() && m.cfg.Scale == scale.Standardize)
	if err != nil {
		return nil, nil, fmt.Errorf("svdd: %w", err)
	}
	// Scaled dual (α' = sα, s = 1/C): bounds 1 (C_anomaly/C for labelled
	// anomalies), Σ y_i α'_i = s, Q = 2·yyᵀ∘K, p_i = −s·y_i·K_ii.
	s := 1 / cNormal
	q := smo.NewKernelMatrix(k, X, ys, 2)
	bounds := make([]float64, n)
	p := make([]float64, n)
	kdiag := make([]float64, n)
	label := func(i int) float64 {
		if ys != nil && ys[i] < 0 {
			return -1
		}
		return 1
	}
	for i := range bounds {
		bounds[i] = 1
		if label(i) < 0 {
			// Σα over the normal rows minus Σα over the anomalies is 1,
			// so an anomaly's α never passes nt·C (nt in the scaled
			// form): a larger bound is that one, and c_anomaly = 1e308
			// no longer makes it +Inf.
			bounds[i] = min(cAnomaly/cNormal, float64(nt))
		}
		kdiag[i] = q.Diag(i) / 2
		p[i] = -s * label(i) * kdiag[i]
	}
	set := m.cfg.Solver
	set.Progress = f.Report
	sol, err := oneclass.Solve(ctx, smo.Problem{Q: q, P: p, Y: ys, C: bounds, Delta: s}, set)
	if err != nil {
		return nil, nil, fmt.Errorf("svdd: %w", err)
	}
	// After the solve, which hears ctx: the check reads up to 2·10⁷
	// values without it (20–40 ms; ten times that under the race
	// detector), and a fit cancelled early then returns at once.
	f.CautionIsolating(m.cfg.Kernel.Kind, X, gamma)
	if sol.Stats.Status == smo.IterationLimit {
		f.CautionIterationLimit(sol.Stats.Iterations, "iterations", "max_iter; 0 is LIBSVM's limit, max(10⁷, 100n)")
	}
	st := Stats{Stats: sol.Stats, Labeled: na, C: cNormal, Gamma: gamma}
	coef := make([]float64, n) // y_i α_i
	gap := sol.Rho             // ‖c‖² − R²
	train := make([]float64, n)
	var centreSq float64
	for i, a := range sol.Alpha {
		yi := label(i)
		coef[i] = yi * a
		g := sol.Grad[i]
		// ⟨φ(x_i), c⟩ = (y_i G_i + K_ii)/2 and the score is gap − y_i G_i.
		centreSq += coef[i] * (yi*g + kdiag[i]) / 2
		train[i] = gap - yi*g
	}
	st.C2 = centreSq
	st.R2 = centreSq - gap
	return &model{k: k, gap: gap, stats: st, exp: smo.NewExpansion(k, X, coef)}, train, nil
}

// Score writes ‖φ(x) − c‖² − R² = k(x, x) − 2 Σ y_i α_i k(x_i, x) + ‖c‖² − R²
// for each row x of X: positive outside the sphere, so higher is more
// anomalous.
func (m *SVDD) Score(dst []float64, X mat.Matrix) ([]float64, error) { return m.Base.Score(dst, X) }

// Score writes the scores of the rows of X into dst: the expansion on
// every core (smo.Expansion.EvalContext, which checks ctx between blocks
// of rows), then k(x, x) row by row (1 for the RBF kernel; a sparse row's
// from its non-zeros).
func (md *model) Score(ctx context.Context, dst []float64, X mat.Matrix) error {
	if _, err := md.exp.EvalContext(ctx, dst, X); err != nil {
		return err
	}
	_, d := X.Dims()
	_, isRBF := md.k.(kernel.RBF)
	sp, isSparse := X.(*sparse.CSR)
	rv, isRaw := X.(mat.RawRowViewer)
	var row []float64
	for i, v := range dst {
		kxx := 1.0 // k(x, x) = 1 for the RBF kernel
		if !isRBF {
			ok := false
			if isSparse {
				ind, val := csr.Row(sp, i)
				kxx, ok = kernel.EvalSparse(md.k, ind, val, ind, val)
			}
			if !ok {
				switch {
				case isRaw:
					row = rv.RawRowView(i)
				case row == nil:
					row = make([]float64, d)
					fallthrough
				default:
					mat.Row(row, i, X)
				}
				kxx = md.k.Eval(row, row)
			}
		}
		dst[i] = kxx - 2*v + md.gap
	}
	return nil
}

// Stats returns the statistics of the fit (the zero Stats before Fit).
func (m *SVDD) Stats() Stats {
	if md, ok := m.Model(); ok {
		return md.stats
	}
	return Stats{}
}

// R2 returns the squared radius R² of the fitted sphere (0 before Fit).
func (m *SVDD) R2() float64 { return m.Stats().R2 }

// Center returns the centre c = Σ y_i α_i x_i in input space; it exists
// only for the linear kernel (ok = false otherwise, and before Fit).
func (m *SVDD) Center() (c []float64, ok bool) {
	md, fitted := m.Model()
	if !fitted {
		return nil, false
	}
	if _, lin := md.k.(kernel.Linear); !lin {
		return nil, false
	}
	c = make([]float64, md.exp.D)
	for i, a := range md.exp.Coef {
		md.exp.DoSV(i, func(j int, v float64) { c[j] += a * v })
	}
	return c, true
}

// state is the saved form of a fitted model (the kernel's kind and
// polynomial settings are in the saved parameters). Its fields are the
// file format of version 2.
type state struct {
	Exp   oneclass.State // Σ y_i α_i k(x_i, ·) over the support vectors
	Gap   float64        // ‖c‖² − R²
	Stats Stats
}

// MarshalBinary encodes the fitted model: support vectors, coefficients
// y_i α_i, γ and ‖c‖² − R².
func (md *model) MarshalBinary() ([]byte, error) {
	return method.EncodeState("svdd", state{Exp: oneclass.Save(md.exp, md.stats.Gamma), Gap: md.gap, Stats: md.stats})
}

// decode decodes a model written by MarshalBinary for dim columns,
// validating it: the support vectors' sizes (oneclass.Restore, without
// products that can wrap) and values, non-zero finite coefficients, a
// finite ‖c‖² − R², and their width against dim.
func (m *SVDD) decode(data []byte, dim int) (*model, error) {
	var s state
	if err := method.DecodeState("svdd", data, &s); err != nil {
		return nil, err
	}
	if math.IsNaN(s.Gap) || math.IsInf(s.Gap, 0) {
		return nil, fmt.Errorf("svdd: invalid model: radius not finite")
	}
	e, err := oneclass.Restore(s.Exp, m.cfg.Kernel)
	if err != nil {
		return nil, fmt.Errorf("svdd: invalid model: %w", err)
	}
	if e.D != dim {
		return nil, fmt.Errorf("svdd: the state is for %d columns, the model's shared state for %d", e.D, dim)
	}
	return &model{k: e.Kernel, exp: e, gap: s.Gap, stats: s.Stats}, nil
}

func init() {
	method.Register(method.Info{
		Name:    "svdd",
		Summary: "support vector data description (kernel SVDD dual by the smo package; fit --labeled uses labelled anomalies); score ‖φ(x)−c‖² − R²",
		Version: 2,
	}, New, memory)
}

// memory estimates the peak bytes of a fit or a score (oneclass.Memory:
// the scaled copy of the rows, the kernel matrix's copy, the column
// cache; scoring, the expansion's work), and in a fit the labels, bounds,
// linear term and diagonal.
func memory(m *SVDD, op method.Op, s method.Size) float64 {
	sv := 0
	if md, ok := m.Model(); ok {
		sv = md.exp.Len()
	}
	est := oneclass.Memory(op, s, m.cfg.Solver.CacheMB, sv, m.cfg.Scale != scale.None)
	if op == method.FitOp {
		est += 4 * 8 * float64(s.Rows)
	}
	return est
}
