package stm

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/smo"
	"github.com/kernelad/anomaly/tensor"
)

// OneSTMConfig configures 1STM. The zero value of every field but Shape is
// the documented default.
type OneSTMConfig struct {
	Common
	// Tol and CacheMB are the smo solver's tolerance (0 → 1e-3) and
	// kernel-column cache budget (0 → 200 MB).
	Tol     float64
	CacheMB float64
}

// OneSTM is the one-class support tensor machine: the ν one-class SVM dual
// (eq. 4.12) with the CP kernel of eq. 4.17/4.18, solved by package smo.
type OneSTM struct {
	cfg OneSTMConfig
	r   resolved

	fitted    bool
	exp       *smo.Expansion // over the support samples' component vectors
	rho       float64
	threshold float64
	gamma     float64
	iters     int
}

var _ detector.Detector = (*OneSTM)(nil)

// NewOneSTM validates cfg and returns an unfitted 1STM.
func NewOneSTM(cfg OneSTMConfig) (*OneSTM, error) {
	r, err := cfg.resolve("1stm")
	if err != nil {
		return nil, err
	}
	if err := (smo.Settings{Tol: cfg.Tol, CacheMB: cfg.CacheMB}).Check(); err != nil {
		return nil, fmt.Errorf("1stm: %w", err)
	}
	return &OneSTM{cfg: cfg, r: r}, nil
}

// Fit factorises every training sample and solves the one-class dual.
func (m *OneSTM) Fit(ctx context.Context, X mat.Matrix) error {
	if err := checkTensorRows(X, m.r, 0, "1stm"); err != nil {
		return err
	}
	F, err := componentVectors(ctx, X, m.r)
	if err != nil {
		return fmt.Errorf("1stm: %w", err)
	}
	n, _ := X.Dims()
	gamma := m.r.gamma
	if gamma == 0 {
		ms, _ := seeds(m.cfg.Src)
		gamma = m.r.gfac * medianGamma(F, ms)
	}
	var q smo.Matrix
	if m.r.rank == 1 {
		q = smo.NewKernelMatrix(kernel.RBF{Gamma: gamma}, F, nil, 1)
	} else {
		q = newSumKernel(F, m.r.rank, gamma)
	}
	// LIBSVM's scaling (bounds 1, Σα = νn) as in package ocsvm.
	s := m.r.nu * float64(n)
	cs := make([]float64, n)
	for i := range cs {
		cs[i] = 1
	}
	res, err := smo.Solve(ctx, smo.Problem{Q: q, C: cs, Delta: s}, smo.Settings{
		Tol: m.cfg.Tol, CacheMB: m.cfg.CacheMB, Progress: m.cfg.Progress,
	})
	if err != nil {
		return fmt.Errorf("1stm: %w", err)
	}
	// Expansion over component vectors: each support sample contributes its
	// R components with its α, so Σ_s f(x_s) = Σ_i α_i K(X_i, X).
	R := m.r.rank
	coef := make([]float64, n*R)
	for i, a := range res.Alpha {
		for c := range R {
			coef[i*R+c] = a / s
		}
	}
	train := make([]float64, n)
	for i, g := range res.Gradient {
		train[i] = (res.Rho - g) / s
	}
	m.exp = smo.NewExpansion(kernel.RBF{Gamma: gamma}, F, coef)
	m.rho = res.Rho / s
	m.gamma = gamma
	m.iters = res.Iterations
	m.threshold = detector.ThresholdFromScores(train, m.r.cont)
	m.fitted = true
	return nil
}

// Score writes ρ − Σ_i α_i K(X_i, X) for every sample row of X.
func (m *OneSTM) Score(dst []float64, X mat.Matrix) ([]float64, error) {
	if !m.fitted {
		return nil, detector.ErrNotFitted
	}
	if err := checkTensorRows(X, m.r, m.r.d, "1stm"); err != nil {
		return nil, err
	}
	F, err := componentVectors(context.Background(), X, m.r)
	if err != nil {
		return nil, fmt.Errorf("1stm: %w", err)
	}
	n, _ := X.Dims()
	dst = detector.ScoreDst(dst, n)
	v := m.exp.Eval(nil, F)
	R := m.r.rank
	for i := range n {
		dst[i] = m.rho - floats.Sum(v[i*R:(i+1)*R])
	}
	return dst, nil
}

// Threshold returns the score above which a sample is an anomaly.
func (m *OneSTM) Threshold() float64 { return m.threshold }

// Gamma returns the kernel width used by the last fit.
func (m *OneSTM) Gamma() float64 { return m.gamma }

// SampleShape returns the sample shape the model takes.
func (m *OneSTM) SampleShape() []int { return append([]int(nil), m.r.shape...) }

// checkTensorRows validates a batch: detector.CheckMatrix, then the shape
// against the row length (a *tensor.ShapeError naming both when they
// differ); when scoring (want > 0) a wrong row length is also a
// *detector.DimError.
func checkTensorRows(X mat.Matrix, r resolved, want int, name string) error {
	if r.shape == nil {
		return fmt.Errorf("%s: the sample shape is required (shape=24x51 on the command line; taken from N-d .npy/.npz files)", name)
	}
	if err := detector.CheckMatrix(X, 0); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	_, c := X.Dims()
	err := tensor.CheckShape(r.shape, c)
	if want > 0 && c != want {
		// Both a *detector.DimError and the *tensor.ShapeError that names
		// the sample shape (errors.As finds either).
		if err != nil {
			return fmt.Errorf("%s: %w (%w)", name, &detector.DimError{Got: c, Want: want}, err)
		}
		return fmt.Errorf("%s: %w", name, &detector.DimError{Got: c, Want: want})
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// medianGamma is the median rule on component vectors, seeded.
func medianGamma(F *mat.Dense, src rand.Source) float64 {
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
			d := k.sq[i*k.R+a] + k.sq[j*k.R+b] - 2*floats.Dot(x, y)
			s += math.Exp(-k.gamma * max(d, 0))
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

// oneSTMState is the saved form of a fitted 1STM.
type oneSTMState struct {
	Shape     []int
	Rank      int
	Gamma     float64
	SV        []float64
	Coef      []float64
	Rho       float64
	Threshold float64
}

// MarshalBinary encodes the fitted model.
func (m *OneSTM) MarshalBinary() ([]byte, error) {
	if !m.fitted {
		return nil, detector.ErrNotFitted
	}
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(oneSTMState{Shape: m.r.shape, Rank: m.r.rank, Gamma: m.gamma,
		SV: m.exp.SV, Coef: m.exp.Coef, Rho: m.rho, Threshold: m.threshold})
	return b.Bytes(), err
}

// UnmarshalBinary decodes a model written by MarshalBinary, validating it.
func (m *OneSTM) UnmarshalBinary(data []byte) error {
	var s oneSTMState
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&s); err != nil {
		return fmt.Errorf("1stm: decoding model: %w", err)
	}
	cfg := m.cfg
	cfg.Shape, cfg.Rank, cfg.Gamma = s.Shape, s.Rank, s.Gamma
	r, err := cfg.resolve("1stm")
	if err != nil {
		return fmt.Errorf("1stm: invalid model: %w", err)
	}
	if r.shape == nil {
		return fmt.Errorf("1stm: invalid model: no sample shape")
	}
	if !(s.Gamma > 0) || math.IsInf(s.Gamma, 0) || len(s.Coef) == 0 || len(s.SV) != len(s.Coef)*r.dim ||
		math.IsNaN(s.Rho) || math.IsInf(s.Rho, 0) || math.IsNaN(s.Threshold) || !allFinite(s.SV) || !allFinite(s.Coef) {
		return fmt.Errorf("1stm: invalid model")
	}
	exp := &smo.Expansion{Kernel: kernel.RBF{Gamma: s.Gamma}, SV: s.SV, Coef: s.Coef, D: r.dim}
	exp.Init()
	*m = OneSTM{cfg: cfg, r: r, fitted: true, exp: exp, rho: s.Rho, threshold: s.Threshold, gamma: s.Gamma}
	return nil
}

func allFinite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
