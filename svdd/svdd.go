package svdd

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/smoparams"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/smo"
)

// Config configures SVDD. The zero value is the default (ν = 0.5, RBF
// kernel with gamma = scale).
type Config struct {
	// C is the bound on each α_i of the normal (and unlabeled) rows; it must
	// be ≥ 1/n. Set C or Nu, not both; with neither, Nu = 0.5.
	C float64
	// Nu ∈ (0, 1] sets C = 1/(νn): ν bounds the fraction of training rows
	// outside the sphere from above and of support vectors from below.
	Nu float64
	// CAnomaly is the bound on the α_l of labelled anomalies in FitLabeled;
	// 0 means the same C as the normal rows.
	CAnomaly float64
	// Kernel is rbf (default), laplacian, poly or linear.
	Kernel string
	// Gamma is the kernel width; 0 means 1/(d·Var(X)) (scikit-learn's
	// "scale").
	Gamma float64
	// Coef0 and Degree parametrise the polynomial kernel; Degree 0 means 3.
	Coef0  float64
	Degree int
	// Contamination is the expected share of anomalies used to set the
	// threshold; 0 means detector.DefaultContamination.
	Contamination float64
	// Settings are the solver's: tolerance (0 → 1e-3), column-cache budget
	// (0 → 200 MB), shrinking, iteration limit (0 → LIBSVM's) and a
	// progress callback (nil: none).
	smo.Settings
}

// Stats describes the last fit.
type Stats struct {
	Iterations int
	Status     smo.Status
	// Objective is the dual objective αᵀ(yyᵀ∘K)α − Σ y_i α_i K_ii
	// (the negative of (21) of lecture 001), at the solution.
	Objective float64
	// R2 is the squared radius and C2 the squared norm ‖c‖² of the centre.
	R2, C2 float64
	// SV counts α_i > 0, BoundedSV the α_i at their bound.
	SV, BoundedSV int
	// Labeled is the number of labelled anomalies used (FitLabeled).
	Labeled int
	// C is the bound used for the normal rows, Gamma the kernel width.
	C, Gamma                         float64
	CachePeakBytes, CacheBudgetBytes int64
}

// SVDD is support vector data description with the kernel trick.
type SVDD struct {
	cfg Config
	nu  float64
	c   float64 // contamination

	fitted    bool
	k         kernel.Kernel
	exp       *smo.Expansion // Σ y_i α_i k(x_i, ·) over the support vectors
	r         float64        // ‖c‖² − R²
	threshold float64
	d         int
	stats     Stats
}

var (
	_ detector.Detector      = (*SVDD)(nil)
	_ detector.LabeledFitter = (*SVDD)(nil)
)

// New validates cfg and returns an unfitted SVDD.
func New(cfg Config) (*SVDD, error) {
	if cfg.C != 0 && cfg.Nu != 0 {
		return nil, fmt.Errorf("svdd: set C (%v) or nu (%v), not both", cfg.C, cfg.Nu)
	}
	nu := cfg.Nu
	if cfg.C == 0 && nu == 0 {
		nu = 0.5
	}
	if cfg.C == 0 && !(nu > 0 && nu <= 1) {
		return nil, fmt.Errorf("svdd: nu = %v is outside (0, 1]", cfg.Nu)
	}
	if cfg.C < 0 || math.IsNaN(cfg.C) || math.IsInf(cfg.C, 0) {
		return nil, fmt.Errorf("svdd: C = %v must be a finite number ≥ 1/n", cfg.C)
	}
	if cfg.CAnomaly < 0 || math.IsNaN(cfg.CAnomaly) || math.IsInf(cfg.CAnomaly, 0) {
		return nil, fmt.Errorf("svdd: c_anomaly = %v must be a finite number > 0 (or 0 for C)", cfg.CAnomaly)
	}
	c, err := detector.Contamination(cfg.Contamination)
	if err != nil {
		return nil, fmt.Errorf("svdd: %w", err)
	}
	if cfg.Gamma < 0 || math.IsNaN(cfg.Gamma) || math.IsInf(cfg.Gamma, 0) {
		return nil, fmt.Errorf("svdd: gamma = %v must be a finite number > 0 (or 0 for scale)", cfg.Gamma)
	}
	if cfg.Degree < 0 {
		return nil, fmt.Errorf("svdd: degree = %d must be ≥ 1 (or 0 for 3)", cfg.Degree)
	}
	if err := cfg.Settings.Check(); err != nil {
		return nil, fmt.Errorf("svdd: %w", err)
	}
	if cfg.Kernel == "" {
		cfg.Kernel = "rbf"
	}
	if cfg.Degree == 0 {
		cfg.Degree = 3
	}
	if _, err := kernel.Parse(cfg.Kernel, 1, cfg.Coef0, cfg.Degree); err != nil {
		return nil, fmt.Errorf("svdd: %w", err)
	}
	return &SVDD{cfg: cfg, nu: nu, c: c}, nil
}

// Fit trains on the rows of X, all taken as normal.
func (m *SVDD) Fit(ctx context.Context, X mat.Matrix) error {
	if err := detector.CheckMatrix(X, 0); err != nil {
		return fmt.Errorf("svdd: %w", err)
	}
	return m.fit(ctx, X, nil)
}

// FitLabeled trains with labelled anomalies (Tax & Duin's SVDD with negative
// examples): y[i] = 1 marks a known anomaly, which the sphere is pushed to
// exclude; 0 (normal) and −1 (unlabeled) rows are described by the sphere.
// y may be nil (then it is Fit).
func (m *SVDD) FitLabeled(ctx context.Context, X mat.Matrix, y []int) error {
	if err := detector.CheckMatrix(X, 0); err != nil {
		return fmt.Errorf("svdd: %w", err)
	}
	n, _ := X.Dims()
	if y != nil && len(y) != n {
		return fmt.Errorf("svdd: %d labels for %d rows", len(y), n)
	}
	var lab []int8
	if y != nil {
		lab = make([]int8, n)
		for i, v := range y {
			switch v {
			case 1:
				lab[i] = -1
			case 0, -1:
				lab[i] = 1
			default:
				return fmt.Errorf("svdd: label y[%d] = %d, want 1 (anomaly), 0 (normal) or −1 (unlabeled)", i, v)
			}
		}
	}
	return m.fit(ctx, X, lab)
}

// fit solves the dual with labels ys (nil: all normal; −1 marks a labelled
// anomaly).
func (m *SVDD) fit(ctx context.Context, X mat.Matrix, ys []int8) error {
	n, d := X.Dims()
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
		return fmt.Errorf("svdd: every row is labelled an anomaly; the sphere needs normal or unlabeled rows")
	}
	c1 := m.cfg.C
	if c1 == 0 {
		c1 = 1 / (m.nu * float64(nt))
	}
	if c1*float64(nt) < 1-1e-12 {
		return fmt.Errorf("svdd: C = %v < 1/n = %v: no α with Σα = 1 and α_i ≤ C exists (use C ≥ 1/n, or nu ≤ 1)", c1, 1/float64(nt))
	}
	c2 := m.cfg.CAnomaly
	if c2 == 0 {
		c2 = c1
	}
	if ys == nil && c1 > 1 {
		// Σα = 1 with α ≥ 0 already gives α_i ≤ 1: a larger C is the hard
		// sphere, and solving it as C = 1 keeps the tolerance's scale.
		c1 = 1
	}
	gamma := m.cfg.Gamma
	if gamma == 0 {
		gamma = kernel.ScaleGamma(X)
	}
	k, err := kernel.Parse(m.cfg.Kernel, gamma, m.cfg.Coef0, m.cfg.Degree)
	if err != nil {
		return fmt.Errorf("svdd: %w", err)
	}
	// Scaled dual (α' = sα, s = 1/C): bounds 1 (C_anomaly/C for labelled
	// anomalies), Σ y_i α'_i = s, Q = 2·yyᵀ∘K, p_i = −s·y_i·K_ii.
	s := 1 / c1
	q := smo.NewKernelMatrix(k, X, ys, 2)
	cs := make([]float64, n)
	p := make([]float64, n)
	kd := make([]float64, n)
	for i := range cs {
		yi := 1.0
		cs[i] = 1
		if ys != nil && ys[i] < 0 {
			yi = -1
			cs[i] = c2 / c1
		}
		kd[i] = q.Diag(i) / 2
		p[i] = -s * yi * kd[i]
	}
	res, err := smo.Solve(ctx, smo.Problem{Q: q, P: p, Y: ys, C: cs, Delta: s}, m.cfg.Settings)
	if err != nil {
		return fmt.Errorf("svdd: %w", err)
	}
	st := Stats{Iterations: res.Iterations, Status: res.Status, Objective: res.Objective / (s * s),
		Labeled: na, C: c1, Gamma: gamma, CachePeakBytes: res.CachePeakBytes, CacheBudgetBytes: res.CacheBudgetBytes}
	coef := make([]float64, n) // y_i α_i
	r := res.Rho / s
	train := make([]float64, n)
	var c2norm float64
	for i, a := range res.Alpha {
		yi := 1.0
		if ys != nil && ys[i] < 0 {
			yi = -1
		}
		if a > 0 {
			st.SV++
			if a >= cs[i] {
				st.BoundedSV++
			}
		}
		coef[i] = yi * a / s
		g := res.Gradient[i] / s
		// ⟨φ(x_i), c⟩ = (y_i G_i + K_ii)/2 and the score is r − y_i G_i.
		c2norm += coef[i] * (yi*g + kd[i]) / 2
		train[i] = r - yi*g
	}
	st.C2 = c2norm
	st.R2 = c2norm - r
	m.fitted, m.k, m.d, m.r, m.stats = true, k, d, r, st
	m.exp = smo.NewExpansion(k, X, coef)
	m.threshold = detector.ThresholdFromScores(train, m.c)
	return nil
}

// Score writes ‖φ(x) − c‖² − R² = k(x, x) − 2 Σ y_i α_i k(x_i, x) + ‖c‖² − R²
// for each row x of X: positive outside the sphere, so higher is more
// anomalous.
func (m *SVDD) Score(dst []float64, X mat.Matrix) ([]float64, error) {
	if !m.fitted {
		return nil, detector.ErrNotFitted
	}
	if err := detector.CheckMatrix(X, m.d); err != nil {
		return nil, fmt.Errorf("svdd: %w", err)
	}
	r, _ := X.Dims()
	dst = detector.ScoreDst(dst, r)
	m.exp.Eval(dst, X)
	_, isRBF := m.k.(kernel.RBF)
	row := make([]float64, m.d)
	for i, v := range dst {
		kxx := 1.0 // k(x, x) = 1 for the RBF kernel
		if !isRBF {
			mat.Row(row, i, X)
			kxx = m.k.Eval(row, row)
		}
		dst[i] = kxx - 2*v + m.r
	}
	return dst, nil
}

// Threshold returns the score above which a row is an anomaly.
func (m *SVDD) Threshold() float64 { return m.threshold }

// Stats returns the statistics of the last fit.
func (m *SVDD) Stats() Stats { return m.stats }

// R2 returns the squared radius R² of the fitted sphere.
func (m *SVDD) R2() float64 { return m.stats.R2 }

// Center returns the centre c = Σ y_i α_i x_i in input space; it exists
// only for the linear kernel (ok = false otherwise).
func (m *SVDD) Center() (c []float64, ok bool) {
	if !m.fitted {
		return nil, false
	}
	if _, lin := m.k.(kernel.Linear); !lin {
		return nil, false
	}
	c = make([]float64, m.d)
	for i, a := range m.exp.Coef {
		for j, v := range m.exp.SV[i*m.d : (i+1)*m.d] {
			c[j] += a * v
		}
	}
	return c, true
}

type state struct {
	Kernel       string
	Gamma, Coef0 float64
	Degree       int
	D            int
	SV           []float64
	Coef         []float64 // y_i α_i
	R            float64
	Threshold    float64
	Stats        Stats
}

// MarshalBinary encodes the fitted model: kernel, support vectors,
// coefficients y_i α_i, ‖c‖² − R² and threshold.
func (m *SVDD) MarshalBinary() ([]byte, error) {
	if !m.fitted {
		return nil, detector.ErrNotFitted
	}
	s := state{Kernel: m.cfg.Kernel, Gamma: m.stats.Gamma, Coef0: m.cfg.Coef0, Degree: m.cfg.Degree,
		D: m.d, SV: m.exp.SV, Coef: m.exp.Coef, R: m.r, Threshold: m.threshold, Stats: m.stats}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(s); err != nil {
		return nil, fmt.Errorf("svdd: %w", err)
	}
	return b.Bytes(), nil
}

// UnmarshalBinary decodes a model written by MarshalBinary, validating it.
func (m *SVDD) UnmarshalBinary(data []byte) error {
	var s state
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&s); err != nil {
		return fmt.Errorf("svdd: decoding model: %w", err)
	}
	bad := func(what string) error { return fmt.Errorf("svdd: invalid model: %s", what) }
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	if s.D <= 0 || len(s.Coef) == 0 || len(s.SV) != len(s.Coef)*s.D {
		return bad("sizes")
	}
	if !finite(s.R) || math.IsNaN(s.Threshold) {
		return bad("radius or threshold not finite")
	}
	for _, c := range s.Coef {
		if c == 0 || !finite(c) {
			return bad("coefficient out of range")
		}
	}
	for _, v := range s.SV {
		if !finite(v) {
			return bad("support vector not finite")
		}
	}
	k, err := kernel.Parse(s.Kernel, s.Gamma, s.Coef0, s.Degree)
	if err != nil {
		return bad(err.Error())
	}
	nm := &SVDD{cfg: m.cfg, nu: m.nu, c: m.c, fitted: true, k: k, d: s.D, r: s.R, threshold: s.Threshold, stats: s.Stats}
	nm.cfg.Kernel, nm.cfg.Coef0, nm.cfg.Degree = s.Kernel, s.Coef0, s.Degree
	nm.exp = &smo.Expansion{Kernel: k, SV: s.SV, Coef: s.Coef, D: s.D}
	nm.exp.Init()
	*m = *nm
	return nil
}

func init() {
	detector.Register(detector.Method{
		Name:    "svdd",
		Summary: "support vector data description (kernel SVDD dual by the smo package; fit --labeled uses labelled anomalies); score ‖φ(x)−c‖² − R²",
		Version: 1,
		Params: append([]detector.Param{
			{Name: "nu", Default: "0.5", Help: "C = 1/(nu·n); upper bound on the training outlier fraction, in (0, 1]"},
			{Name: "c", Default: "", Help: "bound C ≥ 1/n on each α (instead of nu)"},
			{Name: "c_anomaly", Default: "", Help: "bound on the α of labelled anomalies (fit --labeled); empty = C"},
			{Name: "kernel", Default: "rbf", Help: "rbf, laplacian, poly or linear"},
			{Name: "gamma", Default: "scale", Help: "kernel width (> 0) or scale = 1/(d·Var(X))"},
			{Name: "coef0", Default: "0", Help: "polynomial kernel offset"},
			{Name: "degree", Default: "3", Help: "polynomial kernel degree"},
			{Name: "contamination", Default: "0.1", Help: "share of training rows above the threshold, in (0, 0.5]"},
		}, smoparams.Params()...),
		New: func(p *detector.Params) (detector.Detector, error) {
			cfg, err := configFromParams(p)
			if err != nil {
				return nil, err
			}
			return New(cfg)
		},
	})
}

func configFromParams(p *detector.Params) (Config, error) {
	var cfg Config
	if p.Has("c") {
		cfg.C = p.Float("c", 0)
		p.Check(cfg.C > 0, "c", "must be > 0 (and ≥ 1/n)")
		p.Check(!p.Has("nu"), "c", "set c or nu, not both")
	} else {
		cfg.Nu = p.Float("nu", 0.5)
		p.Check(cfg.Nu > 0 && cfg.Nu <= 1, "nu", "must be in (0, 1]")
	}
	if p.Has("c_anomaly") {
		cfg.CAnomaly = p.Float("c_anomaly", 0)
		p.Check(cfg.CAnomaly > 0, "c_anomaly", "must be > 0")
	}
	cfg.Kernel = p.Choice("kernel", "rbf", "rbf", "gaussian", "laplacian", "poly", "polynomial", "linear")
	cfg.Gamma = p.PositiveOr("gamma", "scale")
	cfg.Coef0 = p.Float("coef0", 0)
	cfg.Degree = p.Int("degree", 3)
	p.Check(cfg.Degree >= 1, "degree", "must be ≥ 1")
	cfg.Settings = smoparams.Read(p)
	cfg.Contamination = p.Float("contamination", detector.DefaultContamination)
	p.Check(cfg.Contamination > 0 && cfg.Contamination <= 0.5, "contamination", "must be in (0, 0.5]")
	if err := p.Err(); err != nil {
		return cfg, err
	}
	return cfg, nil
}
