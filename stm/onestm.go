package stm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/detector/method/oneclass"
	"github.com/kernelad/anomaly/internal/fastmath"
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
	tensorBase[*oneModel]
	cfg OneSTMConfig
}

// oneModel is a fitted 1STM: the kernel expansion over the support
// samples' component vectors, and what factorises the rows it scores.
type oneModel struct {
	r     resolved
	exp   *smo.Expansion // each support sample's R components, each with its α
	rho   float64
	gamma float64
	stats oneclass.Stats
}

var _ detector.Detector = (*OneSTM)(nil)

// NewOneSTM validates cfg and returns an unfitted 1STM.
func NewOneSTM(cfg OneSTMConfig) (*OneSTM, error) {
	m := &OneSTM{cfg: cfg}
	// The training scores are ρ − the solver's gradient (over a float32
	// kernel cache): Settle scores the rows near the threshold again
	// through the model's Score, factorising only those.
	m, err := method.Init(m, &m.Base, "1stm", &m.cfg, method.Hooks[*oneModel]{Fit: m.fit, Decode: m.decode, Settle: true, Densify: true})
	if err != nil {
		return nil, err
	}
	if m.r, err = m.cfg.resolve("1stm"); err != nil {
		return nil, err
	}
	return m, nil
}

// Config returns the resolved configuration.
func (m *OneSTM) Config() OneSTMConfig { return m.cfg }

// Gamma returns the kernel width of the fitted model (0 before Fit).
func (m *OneSTM) Gamma() float64 {
	if mod, ok := m.Model(); ok {
		return mod.gamma
	}
	return 0
}

// Stats returns the solver's statistics of the fitted model.
func (m *OneSTM) Stats() oneclass.Stats {
	if mod, ok := m.Model(); ok {
		return mod.stats
	}
	return oneclass.Stats{}
}

// fit factorises the training rows a chunk at a time, keeping their
// component vectors only, and solves the one-class dual over them.
func (m *OneSTM) fit(ctx context.Context, f *method.Fitting) (*oneModel, []float64, error) {
	F, err := m.r.components(ctx, f, "1stm")
	if err != nil {
		return nil, nil, err
	}
	ms, _ := seeds(fitSource(m.cfg.Src))
	gamma, err := m.cfg.width("1stm", F, ms)
	if err != nil {
		return nil, nil, err
	}
	R := m.r.rank
	var q smo.Matrix
	if R == 1 {
		q = smo.NewKernelMatrix(kernel.RBF{Gamma: gamma}, F, nil, 1)
	} else {
		q = newSumKernel(F, R, gamma)
	}
	st := stages{f: f}
	set := m.cfg.Solver
	set.Progress = st.report
	sol, train, err := oneclass.Nu(ctx, q, m.cfg.Nu, set)
	st.close()
	if err != nil {
		return nil, nil, fmt.Errorf("1stm: %w", err)
	}
	// Expansion over component vectors: each support sample contributes its
	// R components with its α, so Σ_s f(x_s) = Σ_i α_i K(X_i, X).
	coef := make([]float64, len(sol.Alpha)*R)
	for i, a := range sol.Alpha {
		for c := range R {
			coef[i*R+c] = a
		}
	}
	if sol.Stats.Status == smo.IterationLimit {
		f.CautionIterationLimit(sol.Stats.Iterations, "iterations", "max_iter; 0 is LIBSVM's limit, max(10⁷, 100n)")
	}
	model := &oneModel{r: m.r, exp: smo.NewExpansion(kernel.RBF{Gamma: gamma}, F, coef), rho: sol.Rho, gamma: gamma, stats: sol.Stats}
	return model, train, nil
}

// Score writes ρ − Σ_i α_i K(X_i, X) for every sample row of X: the rows
// are factorised, then their components are scored a block at a time.
func (m *oneModel) Score(ctx context.Context, dst []float64, X mat.Matrix) error {
	F, err := m.r.componentVectors(ctx, X)
	if err != nil {
		return err
	}
	return m.scoreComponents(ctx, dst, F)
}

// evalWork is the kernel evaluations (support components × scored
// components) that scoreComponents does between two looks at the
// context, each of Σ I_n multiply-adds: a few milliseconds.
const evalWork = 1 << 21

// scoreComponents writes the scores of the samples whose component
// vectors are the rows of F (R consecutive rows a sample) into dst.
func (m *oneModel) scoreComponents(ctx context.Context, dst []float64, F *mat.Dense) error {
	R, n := m.r.rank, len(dst)
	block := max(1, evalWork/(max(m.exp.Len(), 1)*R))
	v := make([]float64, min(block, n)*R)
	for lo := 0; lo < n; lo += block {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(n, lo+block)
		v = m.exp.Eval(v[:(hi-lo)*R], F.Slice(lo*R, hi*R, 0, m.r.dim))
		for i := lo; i < hi; i++ {
			dst[i] = m.rho - floats.Sum(v[(i-lo)*R:(i-lo+1)*R])
		}
	}
	return nil
}

// stages passes a solver's progress reports on to the fit and ends each
// stage at its total when the next one starts or the solve returns: smo
// reports its initial gradient a block of rows at a time and moves on to
// its iterations without a report of the last block.
type stages struct {
	f           *method.Fitting
	stage       string
	done, total int
}

func (s *stages) report(stage string, done, total int) {
	if stage != s.stage {
		s.close()
	}
	s.stage, s.done, s.total = stage, done, total
	s.f.Report(stage, done, total)
}

// close ends the current stage at its total (when it has one).
func (s *stages) close() {
	if s.stage != "" && s.total > 0 && s.done < s.total {
		s.f.Report(s.stage, s.total, s.total)
	}
	s.stage = ""
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

// MarshalBinary encodes the model.
func (m *oneModel) MarshalBinary() ([]byte, error) {
	return method.EncodeState("1stm", oneSTMState{Exp: oneclass.Save(m.exp, m.gamma), Rho: m.rho, Stats: m.stats})
}

// errOneState is the error of a 1stm state that no fit writes.
var errOneState = errors.New("1stm: invalid model state")

// decode decodes a model written by MarshalBinary for dim columns: dense
// support component vectors of the sample shape's Σ I_n entries, one per
// coefficient (sizes compared by division, so that no product of sizes
// read from the file can wrap), finite values, non-zero coefficients and
// 0 < γ < ∞.
func (m *OneSTM) decode(data []byte, dim int) (*oneModel, error) {
	if err := m.r.checkDim("1stm", dim); err != nil {
		return nil, err
	}
	var s oneSTMState
	if err := method.DecodeState("1stm", data, &s); err != nil {
		return nil, err
	}
	e := s.Exp
	if e.D != m.r.dim || e.SVPtr != nil || e.SVInd != nil || len(e.Coef) == 0 ||
		len(e.SV)%e.D != 0 || len(e.SV)/e.D != len(e.Coef) ||
		math.IsNaN(s.Rho) || math.IsInf(s.Rho, 0) || !(e.Gamma > 0) || math.IsInf(e.Gamma, 0) {
		return nil, errOneState
	}
	exp, err := oneclass.Restore(e, kernel.Spec{Kind: "rbf"})
	if err != nil {
		return nil, fmt.Errorf("1stm: invalid model state: %w", err)
	}
	return &oneModel{r: m.r, exp: exp, rho: s.Rho, gamma: e.Gamma, stats: s.Stats}, nil
}
