package stm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/internal/parallel"
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
	tensorBase[*linearModel]
	cfg R1STMConfig
}

// featureMap is a random feature map: randfeat.Fourier on the concatenated
// component vectors, or the per-mode construction (permodeMap).
type featureMap interface {
	Transform(dst *mat.Dense, X mat.Matrix)
	Dim() int
}

// linearModel is a fitted random-feature linear one-class machine, the
// model of R1STM and R1SVM.
type linearModel struct {
	fourier featureMap
	w       []float64
	rho     float64
	gamma   float64
	passes  int
	// tensor, for R1STM, factorises the rows a model scores: the
	// features are those of their component vectors. Nil for R1SVM.
	tensor *resolved
}

var _ detector.Detector = (*R1STM)(nil)

// NewR1STM validates cfg and returns an unfitted R1STM.
func NewR1STM(cfg R1STMConfig) (*R1STM, error) {
	m := &R1STM{cfg: cfg}
	m, err := method.Init(m, &m.Base, "r1stm", &m.cfg, method.Hooks[*linearModel]{Fit: m.fit, Decode: m.decode, Densify: true})
	if err != nil {
		return nil, err
	}
	if m.r, err = m.cfg.resolve("r1stm"); err != nil {
		return nil, err
	}
	return m, nil
}

// Config returns the resolved configuration.
func (m *R1STM) Config() R1STMConfig { return m.cfg }

// Gamma returns the kernel width of the fitted model (0 before Fit).
func (m *R1STM) Gamma() float64 { return gammaOf(m.Model()) }

func gammaOf(m *linearModel, fitted bool) float64 {
	if fitted {
		return m.gamma
	}
	return 0
}

// seeds splits src into the median rule's and the feature map's sources.
func seeds(src rand.Source) (median, features rand.Source) {
	if src == nil {
		src = rand.NewPCG(1, 2)
	}
	rng := rand.New(src)
	return rand.NewPCG(rng.Uint64(), rng.Uint64()), rand.NewPCG(rng.Uint64(), rng.Uint64())
}

// fit factorises the training rows a chunk at a time, keeping their
// component vectors only (never the rows), and trains the linear machine
// on the components' summed random features.
func (m *R1STM) fit(ctx context.Context, f *method.Fitting) (*linearModel, []float64, error) {
	F, err := m.r.components(ctx, f, "r1stm")
	if err != nil {
		return nil, nil, err
	}
	var newMap func(float64, int, rand.Source) featureMap
	if m.cfg.Construction == PerMode {
		newMap = func(gamma float64, D int, src rand.Source) featureMap {
			return newPermodeMap(m.r.shape, gamma, m.cfg.ModeFeatures, D, src)
		}
	}
	lin := linearFit{name: "r1stm", gamma: m.cfg.Gamma, rule: kernel.MedianRule, factor: m.cfg.GammaFactor, nu: m.cfg.Nu, Linear: m.cfg.Linear, src: fitSource(m.cfg.Src), newMap: newMap}
	lm, train, err := lin.fit(ctx, f, F, m.r.rank)
	if err != nil {
		return nil, nil, err
	}
	lm.tensor = &m.r
	lm.cautionPasses(f, m.cfg.MaxPass)
	return lm, train, nil
}

// linearFit is what trains a linear model: the width (gamma, or factor
// times the rule's on the training inputs; rule median draws its pairs
// from src), ν, the machine's settings, and the feature map for a width
// (newMap; nil means random Fourier features of the inputs).
type linearFit struct {
	name   string
	gamma  float64
	rule   string
	factor float64
	nu     float64
	Linear
	src    rand.Source
	newMap func(gamma float64, D int, src rand.Source) featureMap
}

// fit trains the linear machine on the inputs V (rows; R consecutive rows
// make one sample, whose features are summed) and returns it with the
// training scores. Stages: features (samples mapped), linear (passes of
// the machine, of max_pass; it ends at its total when the machine
// converges earlier).
func (c linearFit) fit(ctx context.Context, f *method.Fitting, V mat.Matrix, R int) (*linearModel, []float64, error) {
	rows, dim := V.Dims()
	n := rows / R
	ms, fs := seeds(c.src)
	gamma := c.gamma
	if gamma == 0 {
		if c.rule == kernel.MedianRule {
			gamma = c.factor * medianGamma(V, ms)
		} else {
			g, err := kernel.Spec{Rule: c.rule}.Width(V, nil)
			if err != nil {
				return nil, nil, fitErr(c.name, err)
			}
			gamma = c.factor * g
		}
		if err := checkWidth(c.name, gamma, c.factor, c.rule); err != nil {
			return nil, nil, err
		}
	}
	var fm featureMap
	if c.newMap != nil {
		fm = c.newMap(gamma, c.Features, fs)
	} else {
		var err error
		if fm, err = newFourier(ctx, gamma, dim, c.Features, fs); err != nil {
			return nil, nil, err
		}
	}
	Z, err := newRows(ctx, n, c.Features)
	if err != nil {
		return nil, nil, err
	}
	for k, slab := range Z.slabs {
		lo := k * slabRows
		hi := lo + slab.RawMatrix().Rows
		if err := features(ctx, fm, slab, csr.Rows(V, lo*R, hi*R), R, func(done, _ int) { f.Report("features", lo+done, n) }); err != nil {
			return nil, nil, err
		}
	}
	w, rho, passes, err := linearOC(ctx, Z, c.nu, c.Tol, c.MaxPass, f.Report)
	if err != nil {
		return nil, nil, fitErr(c.name, err)
	}
	lm := &linearModel{fourier: fm, w: w, rho: rho, gamma: gamma, passes: passes}
	train := make([]float64, n)
	if err := lm.linearScores(ctx, train, Z); err != nil {
		return nil, nil, err
	}
	return lm, train, nil
}

// cautionPasses cautions the fit when the machine used all of its
// passes without meeting its tolerance (linearOC leaves its loop early
// when it converges).
func (m *linearModel) cautionPasses(f *method.Fitting, limit int) {
	if m.passes >= limit {
		f.CautionIterationLimit(m.passes, "passes", "max_pass")
	}
}

// newFourier is randfeat.NewFourier(kernel.RBF{Gamma: gamma}, d, D, src)
// with ctx checked every drawWork values: the same draws in the same order
// (each feature's frequency, then its phase), so the same map, but the D ×
// d normal draws of wide rows (5·10⁷ for D = 1,000 and 50,000 columns,
// about a second) stop soon after ctx ends.
func newFourier(ctx context.Context, gamma float64, d, D int, src rand.Source) (*randfeat.Fourier, error) {
	k, rng := kernel.RBF{Gamma: gamma}, rand.New(src)
	w, b := mat.NewDense(D, d, nil), make([]float64, D)
	every := max(1, drawWork/d)
	for i := range D {
		if i%every == every-1 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		k.SampleFrequency(w.RawRowView(i), rng)
		b[i] = 2 * math.Pi * rng.Float64()
	}
	return &randfeat.Fourier{W: w, B: b}, nil
}

// drawWork is the number of frequencies newFourier draws between two
// looks at the context: a few milliseconds.
const drawWork = 1 << 18

// featureWork is the multiply-adds (rows × input length × D) of one
// block of features, between two looks at the context: about a
// millisecond. A block has at least 8 samples, the rows randfeat.Fourier
// projects at once: for wide rows its cost is reading the d × D
// frequencies once per 8 rows (a block of 8 rows of 50,000 columns and D
// = 1,000 reads 400 MB, some 50 ms), and a block of one row read them
// once per row, 8 times as long in all.
const featureWork = 1 << 22

// features sets row i of Z (n × D) to the summed features of the rows of
// V that make sample i, Σ_r z(v_{i·R+r}) (with R = 1, z(v_i)). Blocks of
// 8 to 256 samples (fewer for wide rows, about featureWork each) are
// mapped on every core; ctx is checked between blocks and report, when
// set, hears the samples done of n. A row's features do not depend on
// the block it is mapped in.
func features(ctx context.Context, fm featureMap, Z *mat.Dense, V mat.Matrix, R int, report func(done, total int)) error {
	n, D := Z.Dims()
	_, in := V.Dims()
	b := max(8, min(256, featureWork/max(1, R*in*D)))
	var progress func(done, total int)
	if report != nil {
		progress = func(done, _ int) { report(min(n, done*b), n) }
	}
	return parallel.ForBlocksProgress(ctx, (n+b-1)/b, func() func(int) {
		var buf mat.Dense
		return func(blk int) {
			i0, i1 := blk*b, min(n, (blk+1)*b)
			if R == 1 {
				fm.Transform(Z.Slice(i0, i1, 0, D).(*mat.Dense), csr.Rows(V, i0, i1))
				return
			}
			buf.Reset()
			fm.Transform(&buf, csr.Rows(V, i0*R, i1*R))
			for i := i0; i < i1; i++ {
				dst := Z.RawRowView(i)
				copy(dst, buf.RawRowView((i-i0)*R))
				for c := 1; c < R; c++ {
					floats.Add(dst, buf.RawRowView((i-i0)*R+c))
				}
			}
		}
	}, progress)
}

// linearScores sets dst[i] = ρ − ⟨w, z_i⟩ for the feature rows z_i of Z
// (rows.mulVec: the same value for a row wherever the slab it lies in
// starts, at a multiple of four).
func (m *linearModel) linearScores(ctx context.Context, dst []float64, Z *rows) error {
	if err := Z.mulVec(ctx, dst, m.w, -1); err != nil {
		return err
	}
	for i := range dst {
		dst[i] += m.rho
	}
	return nil
}

// scoreBlock is the number of samples Score maps at a time, a slab: the
// features it holds are scoreBlock × D values, multiplied as the fit's
// slabs are.
const scoreBlock = slabRows

// Score writes ρ − ⟨w, z(x)⟩ for the rows x of X (R1STM: the summed
// features of their components), scoreBlock rows at a time.
func (m *linearModel) Score(ctx context.Context, dst []float64, X mat.Matrix) error {
	V, R := X, 1
	if m.tensor != nil {
		F, err := m.tensor.componentVectors(ctx, X)
		if err != nil {
			return err
		}
		V, R = F, m.tensor.rank
	}
	n, D := len(dst), m.fourier.Dim()
	buf := make([]float64, min(n, scoreBlock)*D)
	for lo := 0; lo < n; lo += scoreBlock {
		hi := min(n, lo+scoreBlock)
		Z := mat.NewDense(hi-lo, D, buf[:(hi-lo)*D])
		if err := features(ctx, m.fourier, Z, csr.Rows(V, lo*R, hi*R), R, nil); err != nil {
			return err
		}
		if err := m.linearScores(ctx, dst[lo:hi], rowsOfDense(Z)); err != nil {
			return err
		}
	}
	return nil
}

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
	// PCG(1, 0x57a7). A source made by the seed parameter starts afresh
	// at every fit.
	Src rand.Source
	// Common holds the contamination rate, the scale stage, the sample a
	// fit may be made on and the progress callback.
	method.Common
}

// Bind declares the parameters of R1SVM.
func (c *R1SVMConfig) Bind(s *param.Set) {
	kernel.BindWidth(s, &c.Gamma, &c.Rule, []string{kernel.ScaleScottRule, kernel.MedianRule, kernel.ScaleRule})
	s.Float(&c.GammaFactor, "gamma_factor", DefaultGammaFactor, param.Above(0), "factor on the width rule's γ (when gamma is a rule)")
	s.Float(&c.Nu, "nu", DefaultR1SVMNu, param.Interval(0, 1, true, false), "ν of the one-class machine")
	c.Linear.bind(s)
	s.Seed(&c.Src, "seed", 1, newSeedSource, "seed of the median rule's pairs and the random features")
}

// R1SVM is the randomised one-class SVM on vectors.
type R1SVM struct {
	method.Base[*linearModel]
	cfg R1SVMConfig
}

var _ detector.Detector = (*R1SVM)(nil)

// NewR1SVM validates cfg and returns an unfitted R1SVM.
func NewR1SVM(cfg R1SVMConfig) (*R1SVM, error) {
	m := &R1SVM{cfg: cfg}
	// Densify: a random Fourier feature is not shift-invariant (only
	// the kernel its features estimate is), so sparse rows scaled
	// without centring would give another model than their dense copy.
	return method.Init(m, &m.Base, "r1svm", &m.cfg, method.Hooks[*linearModel]{Fit: m.fit, Decode: m.decode, Densify: true})
}

// Config returns the resolved configuration.
func (m *R1SVM) Config() R1SVMConfig { return m.cfg }

// Gamma returns the kernel width of the fitted model (0 before Fit).
func (m *R1SVM) Gamma() float64 { return gammaOf(m.Model()) }

// fit trains on the training rows, held in memory once (the width rules
// read all of them).
func (m *R1SVM) fit(ctx context.Context, f *method.Fitting) (*linearModel, []float64, error) {
	X, err := f.Matrix(ctx)
	if err != nil {
		return nil, nil, err
	}
	if err := kernel.CheckRange(X); err != nil {
		return nil, nil, fmt.Errorf("r1svm: %w", err)
	}
	lin := linearFit{name: "r1svm", gamma: m.cfg.Gamma, rule: m.cfg.Rule, factor: m.cfg.GammaFactor, nu: m.cfg.Nu, Linear: m.cfg.Linear, src: fitSource(m.cfg.Src)}
	lm, train, err := lin.fit(ctx, f, X, 1)
	if err != nil {
		return nil, nil, err
	}
	f.CautionIsolating("rbf", X, lm.gamma)
	lm.cautionPasses(f, m.cfg.MaxPass)
	return lm, train, nil
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

// MarshalBinary encodes the model.
func (m *linearModel) MarshalBinary() ([]byte, error) {
	s := linearState{Gamma: m.gamma, Weights: m.w, Rho: m.rho}
	switch f := m.fourier.(type) {
	case *randfeat.Fourier:
		s.W, s.B = method.RowMajor(f.W), f.B
	case *permodeMap:
		for n, fm := range f.maps {
			s.ModeW = append(s.ModeW, method.RowMajor(fm.W))
			s.ModeB = append(s.ModeB, fm.B)
			s.ModeU = append(s.ModeU, method.RowMajor(f.u[n]))
		}
	}
	name := "r1svm"
	if m.tensor != nil {
		name = "r1stm"
	}
	return method.EncodeState(name, s)
}

// errLinearState is the error of a linear model's state that no fit
// writes.
var errLinearState = errors.New("invalid model state")

// decodeLinear decodes a linear model written by MarshalBinary for the
// named method: random Fourier features of inputDim inputs, or with
// permode the per-mode maps of shape. Every size is compared by
// division, so that no product of sizes read from the file can wrap;
// every value must be finite and 0 < γ < ∞.
func decodeLinear(name string, data []byte, inputDim int, permode bool, shape []int) (*linearModel, error) {
	var s linearState
	if err := method.DecodeState(name, data, &s); err != nil {
		return nil, err
	}
	bad := fmt.Errorf("%s: %w", name, errLinearState)
	D := len(s.Weights)
	if D == 0 || !(s.Gamma > 0) || math.IsInf(s.Gamma, 0) || !method.Finite(s.Weights) || math.IsNaN(s.Rho) || math.IsInf(s.Rho, 0) {
		return nil, bad
	}
	m := &linearModel{w: s.Weights, rho: s.Rho, gamma: s.Gamma}
	if !permode {
		if len(s.ModeW)+len(s.ModeB)+len(s.ModeU) > 0 || len(s.B) != D || len(s.W)%D != 0 || len(s.W)/D != inputDim || !method.Finite(s.W, s.B) {
			return nil, bad
		}
		f := &randfeat.Fourier{W: mat.NewDense(D, inputDim, s.W), B: s.B}
		warm(f, inputDim)
		m.fourier = f
		return m, nil
	}
	if len(s.W)+len(s.B) > 0 || len(s.ModeW) != len(shape) || len(s.ModeB) != len(shape) || len(s.ModeU) != len(shape) {
		return nil, bad
	}
	pm := &permodeMap{sides: shape, D: D}
	for n, side := range shape {
		Dm := len(s.ModeB[n])
		if Dm == 0 || len(s.ModeW[n])%Dm != 0 || len(s.ModeW[n])/Dm != side || len(s.ModeU[n])%D != 0 || len(s.ModeU[n])/D != Dm ||
			!method.Finite(s.ModeW[n], s.ModeB[n], s.ModeU[n]) {
			return nil, bad
		}
		f := &randfeat.Fourier{W: mat.NewDense(Dm, side, s.ModeW[n]), B: s.ModeB[n]}
		warm(f, side)
		pm.maps = append(pm.maps, f)
		pm.u = append(pm.u, mat.NewDense(D, Dm, s.ModeU[n]))
	}
	m.fourier = pm
	return m, nil
}

// warm maps one row of zeros with f, so that f makes the transposed copy
// of its frequencies its products use now, at Load, and not in the first
// Score: d × D values (400 MB for 50,000 columns and D = 1,000,
// transposed in about two seconds with no look at the context).
func warm(f *randfeat.Fourier, d int) {
	var z mat.Dense
	f.Transform(&z, mat.NewDense(1, d, nil))
}

// decode decodes an R1STM model for samples of the configured shape
// (dim = its size): features of the component vectors (Σ I_n inputs), of
// the configured construction.
func (m *R1STM) decode(data []byte, dim int) (*linearModel, error) {
	if err := m.r.checkDim("r1stm", dim); err != nil {
		return nil, err
	}
	lm, err := decodeLinear("r1stm", data, m.r.dim, m.cfg.Construction == PerMode, m.r.shape)
	if err != nil {
		return nil, err
	}
	lm.tensor = &m.r
	return lm, nil
}

// decode decodes an R1SVM model for rows of dim columns.
func (m *R1SVM) decode(data []byte, dim int) (*linearModel, error) {
	return decodeLinear("r1svm", data, dim, false, nil)
}
