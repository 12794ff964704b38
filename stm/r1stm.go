package stm

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/randfeat"
)

// DefaultFeatures is the number of random features when Features is 0.
const DefaultFeatures = 1000

// R1STMConfig configures R1STM. The zero value of every field but Shape is
// the documented default.
type R1STMConfig struct {
	Common
	// Features is the number D of random Fourier features; 0 means 1000.
	Features int
	// Tol is the linear machine's tolerance on the KKT violation (0 → 1e-3)
	// and MaxPass its limit on passes over the data (0 → 1000).
	Tol     float64
	MaxPass int
	// Construction selects the random features: Concat (default) or the
	// paper's PerMode construction.
	Construction Construction
	// ModeFeatures is the number of random Fourier features per mode of
	// the PerMode construction; 0 means DefaultModeFeatures.
	ModeFeatures int
}

// R1STM is the randomised one-class support tensor machine: random Fourier
// features of the CP components summed over components (an unbiased
// estimate of the kernel of eq. 4.17/4.18), and a linear one-class machine
// on them.
type R1STM struct {
	cfg R1STMConfig
	r   resolved
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
	fitted    bool
	fourier   featureMap
	w         []float64
	rho       float64
	threshold float64
	gamma     float64
	passes    int
}

var _ detector.Detector = (*R1STM)(nil)

// NewR1STM validates cfg and returns an unfitted R1STM.
func NewR1STM(cfg R1STMConfig) (*R1STM, error) {
	r, err := cfg.resolve("r1stm")
	if err != nil {
		return nil, err
	}
	if err := checkLinear("r1stm", cfg.Features, cfg.Tol, cfg.MaxPass); err != nil {
		return nil, err
	}
	if cfg.Construction != Concat && cfg.Construction != PerMode {
		return nil, fmt.Errorf("r1stm: unknown construction %d", int(cfg.Construction))
	}
	if cfg.ModeFeatures < 0 {
		return nil, fmt.Errorf("r1stm: mode_features = %d must be ≥ 1 (or 0 for %d)", cfg.ModeFeatures, DefaultModeFeatures)
	}
	return &R1STM{cfg: cfg, r: r}, nil
}

func checkLinear(name string, features int, tol float64, maxPass int) error {
	if features < 0 {
		return fmt.Errorf("%s: features = %d must be ≥ 1 (or 0 for %d)", name, features, DefaultFeatures)
	}
	if tol < 0 || math.IsNaN(tol) {
		return fmt.Errorf("%s: tol = %v must be > 0 (or 0 for 1e-3)", name, tol)
	}
	if maxPass < 0 {
		return fmt.Errorf("%s: max_pass = %d must be ≥ 0", name, maxPass)
	}
	return nil
}

// seeds splits src into the median rule's and the feature map's sources.
func seeds(src rand.Source) (median, features rand.Source) {
	if src == nil {
		src = rand.NewPCG(1, 2)
	}
	rng := rand.New(src)
	return rand.NewPCG(rng.Uint64(), rng.Uint64()), rand.NewPCG(rng.Uint64(), rng.Uint64())
}

// fit trains the linear machine on the inputs V (rows; R consecutive rows
// make one sample, summed after the feature map).
//
// newMap builds the feature map for the resolved γ; nil means random
// Fourier features on the rows of V.
func (lm *linearModel) fit(ctx context.Context, V *mat.Dense, R int, gamma, gfac, nu, cont float64, features int, tol float64, maxPass int, src rand.Source,
	newMap func(gamma float64, D int, src rand.Source) featureMap) error {
	rows, dim := V.Dims()
	ms, fs := seeds(src)
	if gamma == 0 {
		gamma = gfac * medianGamma(V, ms)
	}
	if features == 0 {
		features = DefaultFeatures
	}
	var f featureMap
	if newMap != nil {
		f = newMap(gamma, features, fs)
	} else {
		f = randfeat.NewFourier(kernel.RBF{Gamma: gamma}, dim, features, fs)
	}
	Z, err := sumFeatures(ctx, f, V, R)
	if err != nil {
		return err
	}
	w, rho, passes, err := linearOC(ctx, Z, nu, tol, maxPass)
	if err != nil {
		return err
	}
	n := rows / R
	train := make([]float64, n)
	blas64.Gemv(blas.NoTrans, -1, Z.RawMatrix(), blas64.Vector{N: features, Inc: 1, Data: w}, 0, blas64.Vector{N: n, Inc: 1, Data: train})
	for i := range train {
		train[i] += rho
	}
	*lm = linearModel{fitted: true, fourier: f, w: w, rho: rho, gamma: gamma, passes: passes,
		threshold: detector.ThresholdFromScores(train, cont)}
	return nil
}

// sumBlock is the number of samples sumFeatures maps at a time.
const sumBlock = 1024

// sumFeatures maps the rows of V and sums each run of R rows: row i of the
// result is Σ_r z(v_{i·R+r}). It works a block of samples at a time, so only
// sumBlock·R feature rows exist at once and ctx is checked between blocks.
func sumFeatures(ctx context.Context, f featureMap, V *mat.Dense, R int) (*mat.Dense, error) {
	rows, _ := V.Dims()
	n, D := rows/R, f.Dim()
	Z := mat.NewDense(n, D, nil)
	var buf mat.Dense
	for i0 := 0; i0 < n; i0 += sumBlock {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		i1 := min(i0+sumBlock, n)
		if R == 1 {
			f.Transform(Z.Slice(i0, i1, 0, D).(*mat.Dense), V.Slice(i0, i1, 0, V.RawMatrix().Cols))
			continue
		}
		buf.Reset()
		f.Transform(&buf, V.Slice(i0*R, i1*R, 0, V.RawMatrix().Cols))
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

func (lm *linearModel) score(dst []float64, V *mat.Dense, R int) []float64 {
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
	if err := checkTensorRows(X, m.r, 0, "r1stm"); err != nil {
		return err
	}
	F, err := componentVectors(ctx, X, m.r)
	if err != nil {
		return fmt.Errorf("r1stm: %w", err)
	}
	var newMap func(float64, int, rand.Source) featureMap
	if m.cfg.Construction == PerMode {
		newMap = func(gamma float64, D int, src rand.Source) featureMap {
			return newPermodeMap(m.r.shape, gamma, m.cfg.ModeFeatures, D, src)
		}
	}
	if err := m.lm.fit(ctx, F, m.r.rank, m.r.gamma, m.r.gfac, m.r.nu, m.r.cont, m.cfg.Features, m.cfg.Tol, m.cfg.MaxPass, m.cfg.Src, newMap); err != nil {
		return fmt.Errorf("r1stm: %w", err)
	}
	return nil
}

// Score writes ρ − ⟨w, z(X)⟩ for every sample row of X.
func (m *R1STM) Score(dst []float64, X mat.Matrix) ([]float64, error) {
	if !m.lm.fitted {
		return nil, detector.ErrNotFitted
	}
	if err := checkTensorRows(X, m.r, m.r.d, "r1stm"); err != nil {
		return nil, err
	}
	F, err := componentVectors(context.Background(), X, m.r)
	if err != nil {
		return nil, fmt.Errorf("r1stm: %w", err)
	}
	return m.lm.score(dst, F, m.r.rank), nil
}

// Threshold returns the score above which a sample is an anomaly.
func (m *R1STM) Threshold() float64 { return m.lm.threshold }

// Gamma returns the kernel width used by the last fit.
func (m *R1STM) Gamma() float64 { return m.lm.gamma }

// SampleShape returns the sample shape the model takes.
func (m *R1STM) SampleShape() []int { return append([]int(nil), m.r.shape...) }

// R1SVMConfig configures R1SVM, the same random features and linear
// one-class machine on plain row vectors (the R1SVM baseline of the paper).
type R1SVMConfig struct {
	// Gamma is the RBF width; 0 means GammaFactor times the median rule on
	// the rows (GammaFactor 0 means DefaultGammaFactor).
	Gamma       float64
	GammaFactor float64
	// Nu ∈ (0, 1]; 0 means DefaultNu (0.5).
	Nu            float64
	Features      int
	Contamination float64
	Tol           float64
	MaxPass       int
	Src           rand.Source
}

// R1SVM is the randomised one-class SVM on vectors.
type R1SVM struct {
	cfg  R1SVMConfig
	nu   float64
	gfac float64
	cont float64
	d    int
	lm   linearModel
}

var _ detector.Detector = (*R1SVM)(nil)

// NewR1SVM validates cfg and returns an unfitted R1SVM.
func NewR1SVM(cfg R1SVMConfig) (*R1SVM, error) {
	nu := cfg.Nu
	if nu == 0 {
		nu = DefaultNu
	}
	if !(nu > 0 && nu <= 1) {
		return nil, fmt.Errorf("r1svm: nu = %v is outside (0, 1]", cfg.Nu)
	}
	gfac := cfg.GammaFactor
	if gfac == 0 {
		gfac = DefaultGammaFactor
	}
	if !(gfac > 0) || math.IsInf(gfac, 0) {
		return nil, fmt.Errorf("r1svm: gamma_factor = %v must be a finite number > 0", cfg.GammaFactor)
	}
	if cfg.Gamma < 0 || math.IsNaN(cfg.Gamma) || math.IsInf(cfg.Gamma, 0) {
		return nil, fmt.Errorf("r1svm: gamma = %v must be a finite number > 0 (or 0 for the median rule)", cfg.Gamma)
	}
	if err := checkLinear("r1svm", cfg.Features, cfg.Tol, cfg.MaxPass); err != nil {
		return nil, err
	}
	c, err := detector.Contamination(cfg.Contamination)
	if err != nil {
		return nil, fmt.Errorf("r1svm: %w", err)
	}
	return &R1SVM{cfg: cfg, nu: nu, gfac: gfac, cont: c}, nil
}

// Fit trains on the rows of X.
func (m *R1SVM) Fit(ctx context.Context, X mat.Matrix) error {
	if err := detector.CheckMatrix(X, 0); err != nil {
		return fmt.Errorf("r1svm: %w", err)
	}
	V := mat.DenseCopyOf(X)
	if err := m.lm.fit(ctx, V, 1, m.cfg.Gamma, m.gfac, m.nu, m.cont, m.cfg.Features, m.cfg.Tol, m.cfg.MaxPass, m.cfg.Src, nil); err != nil {
		return fmt.Errorf("r1svm: %w", err)
	}
	_, m.d = X.Dims()
	return nil
}

// Score writes ρ − ⟨w, z(x)⟩ for every row x of X.
func (m *R1SVM) Score(dst []float64, X mat.Matrix) ([]float64, error) {
	if !m.lm.fitted {
		return nil, detector.ErrNotFitted
	}
	if err := detector.CheckMatrix(X, m.d); err != nil {
		return nil, fmt.Errorf("r1svm: %w", err)
	}
	return m.lm.score(dst, mat.DenseCopyOf(X), 1), nil
}

// Threshold returns the score above which a row is an anomaly.
func (m *R1SVM) Threshold() float64 { return m.lm.threshold }

// linearState is the saved form of a fitted linear model.
type linearState struct {
	Shape     []int
	Rank      int
	D         int
	Gamma     float64
	W         []float64 // frequencies, Features × input dim
	B         []float64
	Weights   []float64
	Rho       float64
	Threshold float64
	// Per-mode construction: per mode, the Fourier frequencies and phases
	// and the D × Dm projection matrix.
	ModeW, ModeB, ModeU [][]float64
}

func (lm *linearModel) state() linearState {
	s := linearState{Gamma: lm.gamma, Weights: lm.w, Rho: lm.rho, Threshold: lm.threshold}
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
	if D == 0 || !(s.Gamma > 0) || !allFinite(s.Weights) || math.IsNaN(s.Rho) || math.IsInf(s.Rho, 0) || math.IsNaN(s.Threshold) {
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
				!allFinite(s.ModeW[n]) || !allFinite(s.ModeB[n]) || !allFinite(s.ModeU[n]) {
				return bad
			}
			pm.maps = append(pm.maps, &randfeat.Fourier{W: mat.NewDense(Dm, side, s.ModeW[n]), B: s.ModeB[n]})
			pm.u = append(pm.u, mat.NewDense(D, Dm, s.ModeU[n]))
		}
		f = pm
	} else {
		if len(s.B) != D || len(s.W) != D*inputDim || !allFinite(s.W) || !allFinite(s.B) {
			return bad
		}
		f = &randfeat.Fourier{W: mat.NewDense(D, inputDim, s.W), B: s.B}
	}
	*lm = linearModel{fitted: true, fourier: f, w: s.Weights, rho: s.Rho, threshold: s.Threshold, gamma: s.Gamma}
	return nil
}

// MarshalBinary encodes the fitted model.
func (m *R1STM) MarshalBinary() ([]byte, error) {
	if !m.lm.fitted {
		return nil, detector.ErrNotFitted
	}
	s := m.lm.state()
	s.Shape, s.Rank = m.r.shape, m.r.rank
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(s)
	return b.Bytes(), err
}

// UnmarshalBinary decodes a model written by MarshalBinary, validating it.
func (m *R1STM) UnmarshalBinary(data []byte) error {
	var s linearState
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&s); err != nil {
		return fmt.Errorf("r1stm: decoding model: %w", err)
	}
	cfg := m.cfg
	cfg.Shape, cfg.Rank = s.Shape, s.Rank
	r, err := cfg.resolve("r1stm")
	if err != nil {
		return fmt.Errorf("r1stm: invalid model: %w", err)
	}
	if r.shape == nil {
		return fmt.Errorf("r1stm: invalid model: no sample shape")
	}
	nm := R1STM{cfg: cfg, r: r}
	if err := nm.lm.restore(s, r.dim, r.shape); err != nil {
		return fmt.Errorf("r1stm: %w", err)
	}
	*m = nm
	return nil
}

// MarshalBinary encodes the fitted model.
func (m *R1SVM) MarshalBinary() ([]byte, error) {
	if !m.lm.fitted {
		return nil, detector.ErrNotFitted
	}
	s := m.lm.state()
	s.D = m.d
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(s)
	return b.Bytes(), err
}

// UnmarshalBinary decodes a model written by MarshalBinary, validating it.
func (m *R1SVM) UnmarshalBinary(data []byte) error {
	var s linearState
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&s); err != nil {
		return fmt.Errorf("r1svm: decoding model: %w", err)
	}
	if s.D < 1 {
		return fmt.Errorf("r1svm: invalid model")
	}
	nm := R1SVM{cfg: m.cfg, nu: m.nu, gfac: m.gfac, cont: m.cont, d: s.D}
	if err := nm.lm.restore(s, s.D, nil); err != nil {
		return fmt.Errorf("r1svm: %w", err)
	}
	*m = nm
	return nil
}
