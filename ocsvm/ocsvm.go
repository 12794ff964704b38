package ocsvm

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/smoparams"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/smo"
)

// Config configures a one-class SVM. The zero value is the default.
type Config struct {
	// Nu ∈ (0, 1] bounds the fraction of training outliers from above and
	// the fraction of support vectors from below; 0 means 0.5.
	Nu float64
	// Kernel is rbf (default), laplacian, poly, linear or precomputed. With
	// precomputed, Fit takes the n × n kernel matrix of the training rows and
	// Score the m × n matrix k(x_test, x_train).
	Kernel string
	// Gamma is the kernel width for rbf, laplacian and poly; 0 means
	// scikit-learn's "scale", 1/(d·Var(X)) over all entries of the training
	// matrix.
	Gamma float64
	// Coef0 and Degree parametrise the polynomial kernel
	// (γ xᵀy + coef0)^degree; Degree 0 means 3.
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
	// Iterations and Status come from the solver; Status is
	// smo.IterationLimit when MaxIter stopped it.
	Iterations int
	Status     smo.Status
	// Objective is ½αᵀKα and Rho is ρ, both for the Σα = 1 form. LIBSVM
	// reports the Σα = νn form: its objective is (νn)² Objective and its
	// ρ is νn·Rho.
	Objective, Rho float64
	// SV counts the support vectors (α_i > 0), BoundedSV those at the upper
	// bound 1/(νn).
	SV, BoundedSV int
	// Gamma is the kernel width used (after resolving "scale").
	Gamma float64
	// CachePeakBytes is the largest amount of kernel values the solver's
	// cache held; CacheBudgetBytes its bound.
	CachePeakBytes, CacheBudgetBytes int64
}

// OCSVM is Schölkopf's ν one-class support vector machine.
type OCSVM struct {
	cfg Config
	nu  float64
	c   float64 // contamination

	fitted    bool
	precomp   bool
	exp       *smo.Expansion // non-precomputed kernels
	svIndex   []int          // precomputed: training columns of the SVs
	svCoef    []float64      // precomputed: their α
	nTrain    int
	rho       float64
	threshold float64
	d         int
	stats     Stats
}

var (
	_ detector.Detector = (*OCSVM)(nil)
)

// New validates cfg and returns an unfitted one-class SVM.
func New(cfg Config) (*OCSVM, error) {
	nu := cfg.Nu
	if nu == 0 {
		nu = 0.5
	}
	if !(nu > 0 && nu <= 1) {
		return nil, fmt.Errorf("ocsvm: nu = %v is outside (0, 1]", cfg.Nu)
	}
	c, err := detector.Contamination(cfg.Contamination)
	if err != nil {
		return nil, fmt.Errorf("ocsvm: %w", err)
	}
	if cfg.Gamma < 0 || math.IsNaN(cfg.Gamma) || math.IsInf(cfg.Gamma, 0) {
		return nil, fmt.Errorf("ocsvm: gamma = %v must be a finite number > 0 (or 0 for scale)", cfg.Gamma)
	}
	if cfg.Degree < 0 {
		return nil, fmt.Errorf("ocsvm: degree = %d must be ≥ 1 (or 0 for 3)", cfg.Degree)
	}
	if err := cfg.Settings.Check(); err != nil {
		return nil, fmt.Errorf("ocsvm: %w", err)
	}
	if cfg.Kernel == "" {
		cfg.Kernel = "rbf"
	}
	if cfg.Degree == 0 {
		cfg.Degree = 3
	}
	if cfg.Kernel != "precomputed" {
		if _, err := kernel.Parse(cfg.Kernel, 1, cfg.Coef0, cfg.Degree); err != nil {
			return nil, fmt.Errorf("ocsvm: %w", err)
		}
	}
	return &OCSVM{cfg: cfg, nu: nu, c: c}, nil
}

// Fit trains on the rows of X (or, with the precomputed kernel, on the
// n × n kernel matrix X).
func (m *OCSVM) Fit(ctx context.Context, X mat.Matrix) error {
	if err := detector.CheckMatrix(X, 0); err != nil {
		return fmt.Errorf("ocsvm: %w", err)
	}
	n, d := X.Dims()
	var (
		q     smo.Matrix
		k     kernel.Kernel
		gamma float64
	)
	precomp := m.cfg.Kernel == "precomputed"
	if precomp {
		if err := CheckGram(X); err != nil {
			return fmt.Errorf("ocsvm: %w", err)
		}
		q = smo.NewGramMatrix(X, nil, 1)
	} else {
		gamma = m.cfg.Gamma
		if gamma == 0 {
			gamma = kernel.ScaleGamma(X)
		}
		var err error
		if k, err = kernel.Parse(m.cfg.Kernel, gamma, m.cfg.Coef0, m.cfg.Degree); err != nil {
			return fmt.Errorf("ocsvm: %w", err)
		}
		q = smo.NewKernelMatrix(k, X, nil, 1)
	}
	// LIBSVM's scaling: solve with bounds 1 and Σα = νn, so that the
	// tolerance means what it means to LIBSVM; divide by νn afterwards.
	s := m.nu * float64(n)
	cs := make([]float64, n)
	for i := range cs {
		cs[i] = 1
	}
	res, err := smo.Solve(ctx, smo.Problem{Q: q, C: cs, Delta: s}, m.cfg.Settings)
	if err != nil {
		return fmt.Errorf("ocsvm: %w", err)
	}
	coef := make([]float64, n)
	st := Stats{Iterations: res.Iterations, Status: res.Status, Gamma: gamma,
		Objective: res.Objective / (s * s), Rho: res.Rho / s,
		CachePeakBytes: res.CachePeakBytes, CacheBudgetBytes: res.CacheBudgetBytes}
	for i, a := range res.Alpha {
		if a > 0 {
			st.SV++
			if a >= 1 {
				st.BoundedSV++
			}
		}
		coef[i] = a / s
	}
	// Training scores from the solver's gradient G = Kα': ρ − (Kα)_i.
	train := make([]float64, n)
	for i, g := range res.Gradient {
		train[i] = (res.Rho - g) / s
	}
	m.fitted, m.precomp, m.d, m.nTrain = true, precomp, d, n
	m.rho = res.Rho / s
	m.stats = st
	m.exp, m.svIndex, m.svCoef = nil, nil, nil
	if precomp {
		for i, a := range coef {
			if a > 0 {
				m.svIndex = append(m.svIndex, i)
				m.svCoef = append(m.svCoef, a)
			}
		}
	} else {
		m.exp = smo.NewExpansion(k, X, coef)
	}
	m.threshold = detector.ThresholdFromScores(train, m.c)
	return nil
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
	if !m.fitted {
		return nil, detector.ErrNotFitted
	}
	want := m.d
	if m.precomp {
		want = m.nTrain
	}
	if err := detector.CheckMatrix(X, want); err != nil {
		return nil, fmt.Errorf("ocsvm: %w", err)
	}
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

// Threshold returns the score above which a row is an anomaly.
func (m *OCSVM) Threshold() float64 { return m.threshold }

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

// state is the saved form of a fitted model.
type state struct {
	Kernel       string
	Gamma, Coef0 float64
	Degree       int
	D, NTrain    int
	SV           []float64
	Coef         []float64
	SVIndex      []int
	Rho          float64
	Threshold    float64
	Stats        Stats
}

// MarshalBinary encodes the fitted model: kernel, support vectors,
// coefficients, ρ and threshold.
func (m *OCSVM) MarshalBinary() ([]byte, error) {
	if !m.fitted {
		return nil, detector.ErrNotFitted
	}
	s := state{Kernel: m.cfg.Kernel, Gamma: m.stats.Gamma, Coef0: m.cfg.Coef0, Degree: m.cfg.Degree,
		D: m.d, NTrain: m.nTrain, Rho: m.rho, Threshold: m.threshold, Stats: m.stats}
	if m.precomp {
		s.SVIndex, s.Coef = m.svIndex, m.svCoef
	} else {
		s.SV, s.Coef = m.exp.SV, m.exp.Coef
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(s); err != nil {
		return nil, fmt.Errorf("ocsvm: %w", err)
	}
	return b.Bytes(), nil
}

// UnmarshalBinary decodes a model written by MarshalBinary, validating it.
func (m *OCSVM) UnmarshalBinary(data []byte) error {
	var s state
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&s); err != nil {
		return fmt.Errorf("ocsvm: decoding model: %w", err)
	}
	bad := func(what string) error { return fmt.Errorf("ocsvm: invalid model: %s", what) }
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	if s.D <= 0 || s.NTrain <= 0 || len(s.Coef) == 0 || len(s.Coef) > s.NTrain {
		return bad("sizes")
	}
	if !finite(s.Rho) || math.IsNaN(s.Threshold) {
		return bad("rho or threshold not finite")
	}
	for _, c := range s.Coef {
		if !(c > 0) || !finite(c) {
			return bad("coefficient out of range")
		}
	}
	nm := &OCSVM{cfg: m.cfg, nu: m.nu, c: m.c, fitted: true, d: s.D, nTrain: s.NTrain,
		rho: s.Rho, threshold: s.Threshold, stats: s.Stats}
	nm.cfg.Kernel, nm.cfg.Coef0, nm.cfg.Degree = s.Kernel, s.Coef0, s.Degree
	if s.Kernel == "precomputed" {
		if len(s.SVIndex) != len(s.Coef) {
			return bad("support vector indices")
		}
		for _, j := range s.SVIndex {
			if j < 0 || j >= s.NTrain {
				return bad("support vector index out of range")
			}
		}
		nm.precomp, nm.svIndex, nm.svCoef = true, s.SVIndex, s.Coef
	} else {
		k, err := kernel.Parse(s.Kernel, s.Gamma, s.Coef0, s.Degree)
		if err != nil {
			return bad(err.Error())
		}
		if len(s.SV) != len(s.Coef)*s.D {
			return bad("support vector matrix size")
		}
		for _, v := range s.SV {
			if !finite(v) {
				return bad("support vector not finite")
			}
		}
		nm.exp = &smo.Expansion{Kernel: k, SV: s.SV, Coef: s.Coef, D: s.D}
		nm.exp.Init()
	}
	*m = *nm
	return nil
}

func init() {
	detector.Register(detector.Method{
		Name:    "ocsvm",
		Summary: "Schölkopf's ν one-class SVM (kernel dual solved by the smo package); score ρ − Σα_i k(x_i, x)",
		Version: 1,
		Params: append([]detector.Param{
			{Name: "nu", Default: "0.5", Help: "upper bound on the training outlier fraction, lower bound on the SV fraction, in (0, 1]"},
			{Name: "kernel", Default: "rbf", Help: "rbf, laplacian, poly, linear or precomputed"},
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
	cfg.Nu = p.Float("nu", 0.5)
	cfg.Kernel = p.Choice("kernel", "rbf", "rbf", "gaussian", "laplacian", "poly", "polynomial", "linear", "precomputed")
	cfg.Gamma = p.PositiveOr("gamma", "scale")
	cfg.Coef0 = p.Float("coef0", 0)
	cfg.Degree = p.Int("degree", 3)
	p.Check(cfg.Degree >= 1, "degree", "must be ≥ 1")
	cfg.Settings = smoparams.Read(p)
	cfg.Contamination = p.Float("contamination", detector.DefaultContamination)
	p.Check(cfg.Contamination > 0 && cfg.Contamination <= 0.5, "contamination", "must be in (0, 0.5]")
	p.Check(cfg.Nu > 0 && cfg.Nu <= 1, "nu", "must be in (0, 1]")
	if err := p.Err(); err != nil {
		return cfg, err
	}
	return cfg, nil
}
