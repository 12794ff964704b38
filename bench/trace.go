package bench

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"

	"github.com/kernelad/anomaly/cpd"
	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/eval"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/randfeat"
	"github.com/kernelad/anomaly/tensor"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// SGDTraceConfig configures SGDTrace. Zero fields take the defaults.
type SGDTraceConfig struct {
	// Features is the number of random Fourier features D (default 2000).
	Features int
	// Iterations is T, the number of SGD steps (default 2000).
	Iterations int
	// Every is the number of steps between recorded iterates (default 10).
	Every int
	// Seed seeds the feature map and the sampled rows.
	Seed uint64
}

// SGDPoint is the state of EXPoSE's SGD after T steps.
type SGDPoint struct {
	T int `json:"t"`
	// Dist is ‖w_T − w*‖, w* the batch mean embedding of the train part in
	// the same feature map.
	Dist float64 `json:"dist"`
	// AUC is the test AUC-ROC of the scores −⟨φ(y), w_T⟩.
	AUC float64 `json:"auc"`
	// ScoreDiff is the mean over test rows of |η_T(y) − η*(y)|.
	ScoreDiff float64 `json:"score_diff"`
}

// sgdDetector is what SGDTrace needs of expose.EXPoSE.
type sgdDetector interface {
	PartialFit(ctx context.Context, X mat.Matrix) error
	Embedding() []float64
	FeatureMap() randfeat.Map
}

// SGDTrace follows Algorithm 1 of the EXPoSE paper (Schneider, Ertel,
// Ramos) on a train/test split, as in the paper's Figure 2: rows x_t are
// drawn uniformly with replacement from the train part, w_t = (1 − 1/t)
// w_{t−1} + (1/t) φ(x_t) projected onto the unit ball, run through
// expose.EXPoSE.PartialFit with the sgd solver one chunk of Every rows at
// a time. After each chunk it records ‖w_t − w*‖ against the batch mean
// embedding w* = (1/n) Σ φ(x_i) in the same random feature map, the test
// AUC of w_t, and the mean score difference to w*. The kernel is the RBF
// kernel with scikit-learn's gamma = scale on the train part. It also
// returns the test AUC of w*. The expose method must be registered (import
// package expose).
func SGDTrace(ctx context.Context, train, test *dataset.Dataset, cfg SGDTraceConfig) (trace []SGDPoint, batchAUC float64, err error) {
	if cfg.Features == 0 {
		cfg.Features = 2000
	}
	if cfg.Iterations == 0 {
		cfg.Iterations = 2000
	}
	if cfg.Every == 0 {
		cfg.Every = 10
	}
	if cfg.Features < 1 || cfg.Iterations < 1 || cfg.Every < 1 {
		return nil, 0, fmt.Errorf("bench: SGDTrace needs positive Features, Iterations and Every (got %d, %d, %d)", cfg.Features, cfg.Iterations, cfg.Every)
	}
	if test.Y == nil {
		return nil, 0, fmt.Errorf("bench: SGDTrace needs test labels")
	}
	n, d := train.X.Dims()
	gamma := kernel.ScaleGamma(train.X)
	// Through the registry, so that this package does not register expose
	// in every program that imports it. No scale stage: the trace compares
	// the iterate with the batch embedding in the map's own coordinates,
	// computed here on the rows as given.
	built, err := detector.New("expose", map[string]string{"map": "rff", "solver": "sgd", "scale": "none",
		"gamma": strconv.FormatFloat(gamma, 'g', -1, 64), "features": strconv.Itoa(cfg.Features),
		"seed": strconv.FormatUint(cfg.Seed, 10)})
	if err != nil {
		return nil, 0, fmt.Errorf("bench: SGDTrace needs the expose method registered (import github.com/kernelad/anomaly/expose): %w", err)
	}
	det, ok := built.(sgdDetector)
	if !ok {
		return nil, 0, fmt.Errorf("bench: the registered expose detector lacks PartialFit, Embedding or FeatureMap")
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 2))
	row := make([]float64, d)
	chunk := mat.NewDense(cfg.Every, d, nil)
	var (
		wStar, ztest *mat.Dense
		scoreStar    []float64
	)
	m, _ := test.X.Dims()
	scores := make([]float64, m)
	for t := 0; t < cfg.Iterations; t += cfg.Every {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		k := min(cfg.Every, cfg.Iterations-t)
		sub := chunk.Slice(0, k, 0, d).(*mat.Dense)
		for i := 0; i < k; i++ {
			mat.Row(row, rng.IntN(n), train.X)
			sub.SetRow(i, row)
		}
		if err := det.PartialFit(ctx, sub); err != nil {
			return nil, 0, err
		}
		if wStar == nil {
			// The map exists after the first chunk: the batch embedding
			// and the test features in that map.
			fm := det.FeatureMap()
			D := fm.Dim()
			var ztrain mat.Dense
			fm.Transform(&ztrain, train.X)
			ws := make([]float64, D)
			for i := 0; i < n; i++ {
				floats.Add(ws, ztrain.RawRowView(i))
			}
			floats.Scale(1/float64(n), ws)
			wStar = mat.NewDense(1, D, ws)
			ztest = &mat.Dense{}
			fm.Transform(ztest, test.X)
			scoreStar = make([]float64, m)
			for i := range scoreStar {
				scoreStar[i] = -floats.Dot(ztest.RawRowView(i), ws)
			}
			batchAUC = eval.AUCROC(scoreStar, test.Y)
		}
		w := det.Embedding()
		var diff float64
		for i := range scores {
			scores[i] = -floats.Dot(ztest.RawRowView(i), w)
			diff += math.Abs(scores[i] - scoreStar[i])
		}
		trace = append(trace, SGDPoint{T: t + k, Dist: floats.Distance(w, wStar.RawRowView(0), 2),
			AUC: eval.AUCROC(scores, test.Y), ScoreDiff: diff / float64(m)})
	}
	return trace, batchAUC, nil
}

// CPALSTrace returns the relative reconstruction error ‖X − [[λ; A]]‖/‖X‖
// of CP-ALS (package cpd) on x after each of the first maxIter sweeps,
// from one run of cpd.Decompose with the tolerance off and Config.Trace
// set. newSrc, when not nil, gives the source of a random initialisation.
// The trace ends early when the run stops before maxIter (an exact fit).
func CPALSTrace(ctx context.Context, x *tensor.Dense, cfg cpd.Config, newSrc func() rand.Source, maxIter int) ([]float64, error) {
	if maxIter < 1 {
		return nil, fmt.Errorf("bench: CPALSTrace needs maxIter ≥ 1, got %d", maxIter)
	}
	cfg.MaxIter, cfg.Tol, cfg.Trace = maxIter, math.SmallestNonzeroFloat64, true
	if newSrc != nil {
		cfg.Src = newSrc()
	}
	kt, err := cpd.Decompose(ctx, x, cfg)
	if err != nil {
		return nil, err
	}
	return kt.Trace, nil
}

// CPALSPlotBytes is the memory at the peak of the CP-ALS convergence plot
// on a planted tensor of the given shape and rank (at most the smallest
// side): PlantedCP, then CPALSTrace with SVD and with random
// initialisation, one after the other, each phase's buffers garbage when
// the next starts. It counts what they hold at once, in bytes: PlantedCP's
// tensor, Khatri–Rao product and noise; cpd.Decompose's workspace (the
// tensor's last unfolding, the R × P products and Khatri–Rao blocks of its
// sweeps) and the scratch of the SVD initialisation, which unfolds every
// mode whose trailing sides multiply to less than 32 into a copy of the
// tensor, concurrently when the tensor is large and there are several
// cores. For 26 modes of side 2 at rank 2 that is 9 copies of the tensor,
// where four (the old estimate of the plot) ran out of memory at 7.3 GB.
// The process itself (ProcessBytes) is not included.
func CPALSPlotBytes(shape []int, rank int) float64 {
	N, R := len(shape), float64(rank)
	if N < 2 || rank < 1 {
		return 0
	}
	T, F, maxI := 1.0, 0.0, 0.0
	for _, s := range shape {
		T *= float64(s)
		F += float64(s) * R
		maxI = max(maxI, float64(s))
	}
	I0, L := float64(shape[0]), float64(shape[N-1])
	P := T / L
	// PlantedCP: the factors, the tensor and, while it is formed, A_0 and
	// the Khatri–Rao product of the other factors ((T/I_0) × R); then
	// the noise, a second tensor.
	planted := F + T + max(T*R/I0+I0*R, T)
	// cpd's workspace (newWorkspace): the last unfolding (T), A_{N−1}ᵀ,
	// Tᵀ and the Khatri–Rao product of the first N−1 factors (R × P
	// each), the Khatri–Rao blocks before and after a mode, the factors
	// and Gram matrices and the per-mode buffers; its result (F) lives on.
	lb, ra := 1.0, 1.0
	for j := 0; j < N-2; j++ {
		lb *= float64(shape[j])
	}
	for j := 1; j < N-1; j++ {
		ra *= float64(shape[j])
	}
	work := T + R*L + 2*R*P + R*lb + R*ra + 2*F + float64(N)*R*R + 2*maxI*R + 3*R*R
	// The SVD initialisation of modes 1 … N−1 (cpd's svdInit): a mode
	// unfolds into a copy of the tensor unless its trailing sides
	// multiply to 32 or more and its side is at most the rest; a side
	// above the rest is transposed into a second copy; the Gram matrix of
	// the smaller side (and the copy its workspace query makes) and the
	// eigen-solver's blocks come with it. Each mode has its own scratch
	// when the modes run concurrently (cpd's parallel path); otherwise
	// one scratch serves them all, at the size of the largest.
	par := runtime.GOMAXPROCS(0) > 1 && T >= 1<<16 && N >= 3
	var sumScratch, maxScratch float64
	for n := 1; n < N; n++ {
		I := float64(shape[n])
		C := T / I
		after := 1.0
		for _, s := range shape[n+1:] {
			after *= float64(s)
		}
		small := min(I, C)
		sc := 2*small*small + small*(70+4*(2*R+4))
		switch {
		case n == N-1:
			if I > C {
				sc += T
			}
		case after < 32 || I > C:
			sc += T
			if I > C {
				sc += T
			}
		}
		sumScratch += sc
		maxScratch = max(maxScratch, sc)
	}
	scratch := maxScratch
	if par {
		scratch = sumScratch
	}
	return 8 * max(planted, T+work+scratch)
}

// PlantedCP returns a seeded I×J×K tensor of rank R with standard normal
// factors and unit weights, plus Gaussian noise of relative level noise
// (‖E‖ = noise·‖X‖): the test problem of CPALSTrace's plot.
func PlantedCP(shape []int, R int, noise float64, seed uint64) *tensor.Dense {
	rng := rand.New(rand.NewPCG(seed, 3))
	k := cpd.Kruskal{Weights: make([]float64, R)}
	for r := range k.Weights {
		k.Weights[r] = 1
	}
	for _, n := range shape {
		f := mat.NewDense(n, R, nil)
		for i := 0; i < n; i++ {
			for r := 0; r < R; r++ {
				f.Set(i, r, rng.NormFloat64())
			}
		}
		k.Factors = append(k.Factors, f)
	}
	x := k.Full()
	if noise > 0 {
		e := make([]float64, x.Len())
		for i := range e {
			e[i] = rng.NormFloat64()
		}
		floats.Scale(noise*x.Norm()/floats.Norm(e, 2), e)
		floats.Add(x.Data(), e)
	}
	return x
}
