package stm

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/fastmath"
	"github.com/kernelad/anomaly/internal/oneclass"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/param"
	"github.com/kernelad/anomaly/smo"
)

// OneSTMConfig configures 1STM. The zero value of every field but Shape is
// the documented default.
type OneSTMConfig struct {
	Common
	// Solver holds the smo solver's settings: tolerance (0 → 1e-3),
	// kernel-column cache budget (0 → 200 MB), shrinking and the iteration
	// limit.
	Solver smo.Settings
}

// Bind declares the parameters of 1STM.
func (c *OneSTMConfig) Bind(s *param.Set) {
	c.Common.bind(s)
	c.Solver.Bind(s)
}

// OneSTM is the one-class support tensor machine: the ν one-class SVM dual
// (eq. 4.12) with the CP kernel of eq. 4.17/4.18, solved by package smo.
type OneSTM struct {
	tensorModel
	cfg OneSTMConfig

	exp   *smo.Expansion // over the support samples' component vectors
	rho   float64
	gamma float64
	stats oneclass.Stats
}

var _ detector.Detector = (*OneSTM)(nil)

// NewOneSTM validates cfg and returns an unfitted 1STM.
func NewOneSTM(cfg OneSTMConfig) (*OneSTM, error) {
	t, err := newTensorModel("1stm", &cfg, &cfg.Common)
	if err != nil {
		return nil, err
	}
	m := &OneSTM{tensorModel: t, cfg: cfg}
	// The training scores are ρ − the solver's gradient; the rows near
	// the threshold are scored again through Score's path (detector's
	// settleTies picks them, so CP-ALS runs again only for those).
	m.SettleTiesWith(func(dst []float64, X mat.Matrix) ([]float64, error) {
		F, err := componentVectors(context.Background(), X, m.r, nil)
		if err != nil {
			return nil, fmt.Errorf("1stm: %w", err)
		}
		return m.score(dst, F), nil
	})
	return m, nil
}

// Config returns the resolved configuration.
func (m *OneSTM) Config() OneSTMConfig { return m.cfg }

// Fit factorises every training sample and solves the one-class dual.
func (m *OneSTM) Fit(ctx context.Context, X mat.Matrix) error {
	return m.FitWith(ctx, X, m.fit)
}

func (m *OneSTM) fit(ctx context.Context, X mat.Matrix) ([]float64, error) {
	F, err := m.fitComponents(ctx, X, m.cfg.Progress)
	if err != nil {
		return nil, err
	}
	ms, _ := seeds(m.cfg.Src)
	gamma, err := m.cfg.width("1stm", F, ms)
	if err != nil {
		return nil, err
	}
	var q smo.Matrix
	if m.r.rank == 1 {
		q = smo.NewKernelMatrix(kernel.RBF{Gamma: gamma}, F, nil, 1)
	} else {
		q = newSumKernel(F, m.r.rank, gamma)
	}
	set := m.cfg.Solver
	set.Progress = m.cfg.Progress
	sol, train, err := oneclass.Nu(ctx, q, m.cfg.Nu, set)
	if err != nil {
		return nil, fmt.Errorf("1stm: %w", err)
	}
	// Expansion over component vectors: each support sample contributes its
	// R components with its α, so Σ_s f(x_s) = Σ_i α_i K(X_i, X).
	R := m.r.rank
	coef := make([]float64, len(sol.Alpha)*R)
	for i, a := range sol.Alpha {
		for c := range R {
			coef[i*R+c] = a
		}
	}
	m.exp = smo.NewExpansion(kernel.RBF{Gamma: gamma}, F, coef)
	if sol.Stats.Status == smo.IterationLimit {
		m.CautionIterationLimit(sol.Stats.Iterations, "iterations", "max_iter; 0 is LIBSVM's limit, max(10⁷, 100n)")
	}
	m.rho, m.gamma, m.stats = sol.Rho, gamma, sol.Stats
	return train, nil
}

// Score writes ρ − Σ_i α_i K(X_i, X) for every sample row of X.
func (m *OneSTM) Score(dst []float64, X mat.Matrix) ([]float64, error) {
	return m.scoreComponents(dst, X, m.score)
}

func (m *OneSTM) score(dst []float64, F *mat.Dense) []float64 {
	R := m.r.rank
	rows, _ := F.Dims()
	n := rows / R
	dst = detector.ScoreDst(dst, n)
	v := m.exp.Eval(nil, F)
	for i := range n {
		dst[i] = m.rho - floats.Sum(v[i*R:(i+1)*R])
	}
	return dst
}

// Gamma returns the kernel width used by the last fit.
func (m *OneSTM) Gamma() float64 { return m.gamma }

// Stats returns the solver's statistics of the last fit.
func (m *OneSTM) Stats() oneclass.Stats { return m.stats }

// medianGamma is the median rule on component vectors (or r1svm's rows,
// dense or sparse), seeded.
func medianGamma(F mat.Matrix, src rand.Source) float64 {
	if r, _ := F.Dims(); r < 2 {
		return 1
	}
	if src == nil {
		src = rand.NewPCG(1, 2)
	}
	return kernel.MedianGamma(F, src)
}

// sumKernel is the smo.Matrix K_ij = Σ_{r,s} exp(−γ‖f_{i,r} − f_{j,s}‖²)
// of eq. 4.18 over samples with R component vectors each.
type sumKernel struct {
	f     []float64
	sq    []float64
	diag  []float64
	n, R  int
	dim   int
	gamma float64
}

func newSumKernel(F *mat.Dense, R int, gamma float64) *sumKernel {
	rows, dim := F.Dims()
	k := &sumKernel{f: F.RawMatrix().Data, n: rows / R, R: R, dim: dim, gamma: gamma}
	k.sq = make([]float64, rows)
	for i := range rows {
		x := k.f[i*dim : (i+1)*dim]
		k.sq[i] = floats.Dot(x, x)
	}
	k.diag = make([]float64, k.n)
	for i := range k.n {
		k.diag[i] = k.eval(i, i)
	}
	return k
}

func (k *sumKernel) eval(i, j int) float64 {
	s := 0.0
	for a := range k.R {
		x := k.f[(i*k.R+a)*k.dim : (i*k.R+a+1)*k.dim]
		for b := range k.R {
			y := k.f[(j*k.R+b)*k.dim : (j*k.R+b+1)*k.dim]
			s += math.Exp(-k.gamma * fastmath.SqDist(k.sq[i*k.R+a], k.sq[j*k.R+b], floats.Dot(x, y)))
		}
	}
	return s
}

func (k *sumKernel) Len() int           { return k.n }
func (k *sumKernel) Diag(i int) float64 { return k.diag[i] }

// Column sets dst[i] = K_ij for every i in rows (the smo.Matrix contract:
// len(dst) = n, other entries untouched).
func (k *sumKernel) Column(dst []float32, j int, rows []int) {
	w := runtime.GOMAXPROCS(0)
	if len(rows) < 512 || w < 2 {
		for _, i := range rows {
			dst[i] = float32(k.eval(i, j))
		}
		return
	}
	var wg sync.WaitGroup
	chunk := (len(rows) + w - 1) / w
	for lo := 0; lo < len(rows); lo += chunk {
		hi := min(len(rows), lo+chunk)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, i := range rows[lo:hi] {
				dst[i] = float32(k.eval(i, j))
			}
		}()
	}
	wg.Wait()
}

// oneSTMState is the saved form of a fitted 1STM (shape and rank are in
// the saved parameters).
type oneSTMState struct {
	Exp   oneclass.State
	Rho   float64
	Stats oneclass.Stats
}

// MarshalBinary encodes the fitted model.
func (m *OneSTM) MarshalBinary() ([]byte, error) {
	if !m.Fitted() {
		return nil, detector.ErrNotFitted
	}
	return detector.EncodeState("1stm", oneSTMState{Exp: oneclass.Save(m.exp, m.gamma), Rho: m.rho, Stats: m.stats})
}

// UnmarshalBinary decodes a model written by MarshalBinary into a detector
// built with the parameters saved beside it, validating it.
func (m *OneSTM) UnmarshalBinary(data []byte) error {
	var s oneSTMState
	if err := detector.DecodeState("1stm", data, &s); err != nil {
		return err
	}
	if m.r.shape == nil || s.Exp.D != m.r.dim || math.IsNaN(s.Rho) || math.IsInf(s.Rho, 0) || !(s.Exp.Gamma > 0) {
		return fmt.Errorf("1stm: invalid model")
	}
	e, err := oneclass.Restore(s.Exp, kernel.Spec{Kind: "rbf"})
	if err != nil {
		return fmt.Errorf("1stm: invalid model: %w", err)
	}
	m.exp, m.rho, m.gamma, m.stats = e, s.Rho, s.Exp.Gamma, s.Stats
	return nil
}
