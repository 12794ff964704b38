package stm

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/param"
	"github.com/kernelad/anomaly/randfeat"
)

// DefaultFeatures is the number of random features when Features is 0.
const DefaultFeatures = 1000

// R1STMConfig configures R1STM. The zero value of every field but Shape is
// the documented default.
type R1STMConfig struct {
	Common
	// Linear holds the random features and the linear one-class machine's
	// settings.
	Linear
	// Construction selects the random features: Concat (default) or the
	// paper's PerMode construction.
	Construction Construction
	// ModeFeatures is the number of random Fourier features per mode of
	// the PerMode construction; 0 means DefaultModeFeatures.
	ModeFeatures int
}

// Linear configures the random Fourier features and the linear one-class
// machine of R1STM and R1SVM.
type Linear struct {
	// Features is the number D of random Fourier features; 0 means
	// DefaultFeatures.
	Features int
	// Tol is the linear machine's tolerance on the KKT violation (0 → 1e-3)
	// and MaxPass its limit on passes over the data (0 → 1000).
	Tol     float64
	MaxPass int
}

func (c *Linear) bind(s *param.Set) {
	s.Int(&c.Features, "features", DefaultFeatures, param.AtLeast(1), "number of random Fourier features")
	s.Float(&c.Tol, "tol", 1e-3, param.Above(0), "tolerance of the linear one-class machine")
	s.Int(&c.MaxPass, "max_pass", 1000, param.AtLeast(1), "passes limit of the linear one-class machine")
}

// Bind declares the parameters of R1STM.
func (c *R1STMConfig) Bind(s *param.Set) {
	c.Common.bind(s)
	c.Linear.bind(s)
	param.Enum(s, &c.Construction, "construction", []string{"concat", "permode"}, []Construction{Concat, PerMode},
		"concat (one random map on the concatenated factor vectors) or permode (the paper's per-mode features and random rank-one projections)")
	s.Int(&c.ModeFeatures, "mode_features", DefaultModeFeatures, param.AtLeast(1), "random features per mode for construction=permode")
}

// R1STM is the randomised one-class support tensor machine: random Fourier
// features of the CP components summed over components (an unbiased
// estimate of the kernel of eq. 4.17/4.18), and a linear one-class machine
// on them.
type R1STM struct {
	tensorModel
	cfg R1STMConfig
	lm  linearModel
}

// featureMap is a random feature map: randfeat.Fourier on the concatenated
// component vectors, or the per-mode construction (permodeMap).
type featureMap interface {
	Transform(dst *mat.Dense, X mat.Matrix)
	Dim() int
}

// linearModel is a fitted random-feature linear one-class machine.
type linearModel struct {
	fourier featureMap
	w       []float64
	rho     float64
	gamma   float64
	passes  int
}

var _ detector.Detector = (*R1STM)(nil)

// cautionPasses cautions b when the linear machine used all of lin's
// passes without meeting its tolerance (linearOC leaves its loop early
// when it converges).
func (lm *linearModel) cautionPasses(b *detector.Base, lin Linear) {
	limit := lin.MaxPass
	if limit <= 0 {
		limit = 1000
	}
	if lm.passes >= limit {
		b.CautionIterationLimit(lm.passes, "passes", "max_pass")
	}
}

// NewR1STM validates cfg and returns an unfitted R1STM.
func NewR1STM(cfg R1STMConfig) (*R1STM, error) {
	t, err := newTensorModel("r1stm", &cfg, &cfg.Common)
	if err != nil {
		return nil, err
	}
	return &R1STM{tensorModel: t, cfg: cfg}, nil
}

// Config returns the resolved configuration.
func (m *R1STM) Config() R1STMConfig { return m.cfg }

// seeds splits src into the median rule's and the feature map's sources.
func seeds(src rand.Source) (median, features rand.Source) {
	if src == nil {
		src = rand.NewPCG(1, 2)
	}
	rng := rand.New(src)
	return rand.NewPCG(rng.Uint64(), rng.Uint64()), rand.NewPCG(rng.Uint64(), rng.Uint64())
}

// fit trains the linear machine on the inputs V (rows; R consecutive rows
// make one sample, summed after the feature map) and returns the training
// scores. gamma is the fixed width, or 0 for gfac times the width rule
// (rule: median for the median rule on pairs drawn by src, any other one
// of kernel's rules as kernel.Spec.Width computes it).
//
// newMap builds the feature map for the resolved γ; nil means random
// Fourier features on the rows of V.
func (lm *linearModel) fit(ctx context.Context, name string, V mat.Matrix, R int, gamma float64, rule string, gfac, nu float64, lin Linear, src rand.Source,
	newMap func(gamma float64, D int, src rand.Source) featureMap, progress detector.ProgressFunc) ([]float64, error) {
	rows, dim := V.Dims()
	ms, fs := seeds(src)
	if gamma == 0 {
		if rule == kernel.MedianRule {
			gamma = gfac * medianGamma(V, ms)
		} else {
			g, err := kernel.Spec{Rule: rule}.Width(V, nil)
			if err != nil {
				return nil, err
			}
			gamma = gfac * g
		}
		if err := checkWidth(name, gamma, gfac, rule); err != nil {
			return nil, err
		}
	}
	var f featureMap
	if newMap != nil {
		f = newMap(gamma, lin.Features, fs)
	} else {
		f = randfeat.NewFourier(kernel.RBF{Gamma: gamma}, dim, lin.Features, fs)
	}
	Z, err := sumFeatures(ctx, f, V, R)
	if err != nil {
		return nil, err
	}
	w, rho, passes, err := linearOC(ctx, Z, nu, lin.Tol, lin.MaxPass, progress)
	if err != nil {
		return nil, err
	}
	n := rows / R
	train := make([]float64, n)
	blas64.Gemv(blas.NoTrans, -1, Z.RawMatrix(), blas64.Vector{N: lin.Features, Inc: 1, Data: w}, 0, blas64.Vector{N: n, Inc: 1, Data: train})
	for i := range train {
		train[i] += rho
	}
	*lm = linearModel{fourier: f, w: w, rho: rho, gamma: gamma, passes: passes}
	return train, nil
}

// sumBlock is the number of samples sumFeatures maps at a time.
const sumBlock = 1024

// sumFeatures maps the rows of V and sums each run of R rows: row i of the
// result is Σ_r z(v_{i·R+r}). It works a block of samples at a time, so only
// sumBlock·R feature rows exist at once and ctx is checked between blocks.
func sumFeatures(ctx context.Context, f featureMap, V mat.Matrix, R int) (*mat.Dense, error) {
	rows, _ := V.Dims()
	n, D := rows/R, f.Dim()
	if err := ctx.Err(); err != nil {
		return nil, err // before the n × D allocation, the slowest step to stop
	}
	Z := mat.NewDense(n, D, nil)
	var buf mat.Dense
	for i0 := 0; i0 < n; i0 += sumBlock {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		i1 := min(i0+sumBlock, n)
		if R == 1 {
			f.Transform(Z.Slice(i0, i1, 0, D).(*mat.Dense), csr.Rows(V, i0, i1))
			continue
		}
		buf.Reset()
		f.Transform(&buf, csr.Rows(V, i0*R, i1*R))
		for i := i0; i < i1; i++ {
			dst := Z.RawRowView(i)
			for c := range R {
				for j, v := range buf.RawRowView((i-i0)*R + c) {
					dst[j] += v
				}
			}
		}
	}
	return Z, nil
}

func (lm *linearModel) score(dst []float64, V mat.Matrix, R int) []float64 {
	Z, _ := sumFeatures(context.Background(), lm.fourier, V, R) // no cancel: no error
	n, D := Z.Dims()
	dst = detector.ScoreDst(dst, n)
	blas64.Gemv(blas.NoTrans, -1, Z.RawMatrix(), blas64.Vector{N: D, Inc: 1, Data: lm.w}, 0, blas64.Vector{N: n, Inc: 1, Data: dst})
	for i := range dst {
		dst[i] += lm.rho
	}
	return dst
}

// Fit factorises the training samples, maps their components and trains
// the linear one-class machine.
func (m *R1STM) Fit(ctx context.Context, X mat.Matrix) error {
	return m.FitWith(ctx, X, m.fit)
}

func (m *R1STM) fit(ctx context.Context, X mat.Matrix) ([]float64, error) {
	F, err := m.fitComponents(ctx, X, m.cfg.Progress)
	if err != nil {
		return nil, err
	}
	var newMap func(float64, int, rand.Source) featureMap
	if m.cfg.Construction == PerMode {
		newMap = func(gamma float64, D int, src rand.Source) featureMap {
			return newPermodeMap(m.r.shape, gamma, m.cfg.ModeFeatures, D, src)
		}
	}
	train, err := m.lm.fit(ctx, "r1stm", F, m.r.rank, m.cfg.Gamma, kernel.MedianRule, m.cfg.GammaFactor, m.cfg.Nu, m.cfg.Linear, m.cfg.Src, newMap, m.cfg.Progress)
	if err != nil {
		return nil, fitErr("r1stm", err)
	}
	m.lm.cautionPasses(&m.Base, m.cfg.Linear)
	return train, nil
}

// Score writes ρ − ⟨w, z(X)⟩ for every sample row of X.
func (m *R1STM) Score(dst []float64, X mat.Matrix) ([]float64, error) {
	return m.scoreComponents(dst, X, func(dst []float64, F *mat.Dense) []float64 {
		return m.lm.score(dst, F, m.r.rank)
	})
}

// Gamma returns the kernel width used by the last fit.
func (m *R1STM) Gamma() float64 { return m.lm.gamma }

// R1SVMConfig configures R1SVM, the same random features and linear
// one-class machine on plain row vectors (the R1SVM baseline of the paper).
type R1SVMConfig struct {
	// Gamma is the RBF width; 0 means GammaFactor times Rule's width on
	// the rows (GammaFactor 0 means DefaultGammaFactor).
	Gamma float64
	// Rule is the width rule when Gamma is 0: scale_scott (the default,
	// as kde, expose, ocsvm and svdd have it: "" means it), median (the
	// paper's, and the default before the held-out check of the README's
	// Defaults) or scale.
	Rule        string
	GammaFactor float64
	// Nu ∈ (0, 1]; 0 means DefaultR1SVMNu (0.9).
	Nu float64
	// Linear holds the random features and the linear machine's settings.
	Linear
	// Src seeds the median rule's pairs and the random features; nil means
	// PCG(1, 0x57a7).
	Src rand.Source
	// Common holds the contamination rate, the scale stage and the
	// progress callback.
	detector.Common
}

// Bind declares the parameters of R1SVM.
func (c *R1SVMConfig) Bind(s *param.Set) {
	kernel.BindWidth(s, &c.Gamma, &c.Rule, []string{kernel.ScaleScottRule, kernel.MedianRule, kernel.ScaleRule})
	s.Float(&c.GammaFactor, "gamma_factor", DefaultGammaFactor, param.Above(0), "factor on the width rule's γ (when gamma is a rule)")
	s.Float(&c.Nu, "nu", DefaultR1SVMNu, param.Interval(0, 1, true, false), "ν of the one-class machine")
	c.Linear.bind(s)
	s.Seed(&c.Src, "seed", 1, func(seed uint64) rand.Source { return rand.NewPCG(seed, 0x57a7) }, "seed of the median rule's pairs and the random features")
}

// R1SVM is the randomised one-class SVM on vectors.
type R1SVM struct {
	detector.Base
	cfg R1SVMConfig
	lm  linearModel
}

var _ detector.Detector = (*R1SVM)(nil)

// NewR1SVM validates cfg and returns an unfitted R1SVM.
func NewR1SVM(cfg R1SVMConfig) (*R1SVM, error) {
	b, err := detector.NewBase("r1svm", &cfg)
	if err != nil {
		return nil, err
	}
	return &R1SVM{Base: b, cfg: cfg}, nil
}

// Config returns the resolved configuration.
func (m *R1SVM) Config() R1SVMConfig { return m.cfg }

// Gamma returns the kernel width used by the last fit.
func (m *R1SVM) Gamma() float64 { return m.lm.gamma }

// Fit trains on the rows of X.
func (m *R1SVM) Fit(ctx context.Context, X mat.Matrix) error {
	return m.FitWith(ctx, X, func(ctx context.Context, X mat.Matrix) ([]float64, error) {
		if err := kernel.CheckRange(X); err != nil {
			return nil, fmt.Errorf("r1svm: %w", err)
		}
		train, err := m.lm.fit(ctx, "r1svm", csr.Input(X), 1, m.cfg.Gamma, m.cfg.Rule, m.cfg.GammaFactor, m.cfg.Nu, m.cfg.Linear, m.cfg.Src, nil, m.cfg.Progress)
		if err != nil {
			return nil, fitErr("r1svm", err)
		}
		m.CautionIsolating("rbf", X, m.lm.gamma)
		m.lm.cautionPasses(&m.Base, m.cfg.Linear)
		return train, nil
	})
}

// asDense returns X as a *mat.Dense, copying only when it is not one (a
// view or another matrix type); the linear machine reads rows in place.

// Score writes ρ − ⟨w, z(x)⟩ for every row x of X.
func (m *R1SVM) Score(dst []float64, X mat.Matrix) ([]float64, error) {
	return m.ScoreWith(dst, X, func(dst []float64, X mat.Matrix) ([]float64, error) {
		return m.lm.score(dst, csr.Input(X), 1), nil
	})
}

// linearState is the saved form of a fitted linear model.
type linearState struct {
	Gamma   float64
	W       []float64 // frequencies, Features × input dim
	B       []float64
	Weights []float64
	Rho     float64
	// Per-mode construction: per mode, the Fourier frequencies and phases
	// and the D × Dm projection matrix.
	ModeW, ModeB, ModeU [][]float64
}

func (lm *linearModel) state() linearState {
	s := linearState{Gamma: lm.gamma, Weights: lm.w, Rho: lm.rho}
	switch f := lm.fourier.(type) {
	case *randfeat.Fourier:
		s.W, s.B = f.W.RawMatrix().Data, f.B
	case *permodeMap:
		for n, fm := range f.maps {
			s.ModeW = append(s.ModeW, fm.W.RawMatrix().Data)
			s.ModeB = append(s.ModeB, fm.B)
			s.ModeU = append(s.ModeU, f.u[n].RawMatrix().Data)
		}
	}
	return s
}

func (lm *linearModel) restore(s linearState, inputDim int, shape []int) error {
	bad := fmt.Errorf("invalid model")
	D := len(s.Weights)
	if D == 0 || !(s.Gamma > 0) || !detector.Finite(s.Weights) || math.IsNaN(s.Rho) || math.IsInf(s.Rho, 0) {
		return bad
	}
	var f featureMap
	if len(s.ModeW) > 0 {
		if len(s.ModeW) != len(shape) || len(s.ModeB) != len(shape) || len(s.ModeU) != len(shape) {
			return bad
		}
		pm := &permodeMap{sides: shape, D: D}
		for n, side := range shape {
			Dm := len(s.ModeB[n])
			if Dm == 0 || len(s.ModeW[n]) != Dm*side || len(s.ModeU[n]) != D*Dm ||
				!detector.Finite(s.ModeW[n], s.ModeB[n], s.ModeU[n]) {
				return bad
			}
			pm.maps = append(pm.maps, &randfeat.Fourier{W: mat.NewDense(Dm, side, s.ModeW[n]), B: s.ModeB[n]})
			pm.u = append(pm.u, mat.NewDense(D, Dm, s.ModeU[n]))
		}
		f = pm
	} else {
		if len(s.B) != D || len(s.W) != D*inputDim || !detector.Finite(s.W, s.B) {
			return bad
		}
		f = &randfeat.Fourier{W: mat.NewDense(D, inputDim, s.W), B: s.B}
	}
	*lm = linearModel{fourier: f, w: s.Weights, rho: s.Rho, gamma: s.Gamma}
	return nil
}

// marshal encodes the linear model of an R1STM or R1SVM whose Base is b.
func (lm *linearModel) marshal(b *detector.Base) ([]byte, error) {
	if !b.Fitted() {
		return nil, detector.ErrNotFitted
	}
	return detector.EncodeState(b.Method(), lm.state())
}

// unmarshal decodes a linear model written by marshal for the named
// method and restores it on the input dimension and sample shape (nil for
// vectors) that input checks and returns for the decoded state.
func (lm *linearModel) unmarshal(method string, data []byte, input func(s *linearState) (dim int, shape []int, err error)) error {
	var s linearState
	if err := detector.DecodeState(method, data, &s); err != nil {
		return err
	}
	dim, shape, err := input(&s)
	if err != nil {
		return err
	}
	if err := lm.restore(s, dim, shape); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// MarshalBinary encodes the fitted model.
func (m *R1STM) MarshalBinary() ([]byte, error) { return m.lm.marshal(&m.Base) }

// UnmarshalBinary decodes a model written by MarshalBinary into a detector
// built with the parameters saved beside it (shape and rank among them),
// validating it.
func (m *R1STM) UnmarshalBinary(data []byte) error {
	return m.lm.unmarshal("r1stm", data, func(*linearState) (int, []int, error) {
		if m.r.shape == nil {
			return 0, nil, fmt.Errorf("r1stm: invalid model: no sample shape")
		}
		return m.r.dim, m.r.shape, nil
	})
}

// MarshalBinary encodes the fitted model.
func (m *R1SVM) MarshalBinary() ([]byte, error) { return m.lm.marshal(&m.Base) }

// UnmarshalBinary decodes a model written by MarshalBinary, validating it
// against the column count saved with the model.
func (m *R1SVM) UnmarshalBinary(data []byte) error {
	return m.lm.unmarshal("r1svm", data, func(s *linearState) (int, []int, error) {
		if len(s.B) == 0 || len(s.W)%len(s.B) != 0 {
			return 0, nil, fmt.Errorf("r1svm: invalid model")
		}
		dim := len(s.W) / len(s.B)
		return dim, nil, m.CheckStateDim(dim)
	})
}
