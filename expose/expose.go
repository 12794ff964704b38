package expose

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/randfeat"
	"github.com/kernelad/anomaly/sparse"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Solver names.
const (
	Batch = "batch"
	SGD   = "sgd"
)

// Feature map names.
const (
	RFF = "rff" // random Fourier features (Rahimi & Recht)
	ORF = "orf" // orthogonal random features (Yu et al.), RBF only
)

// Config configures an EXPoSE detector. The zero value is valid and means the
// documented defaults.
type Config struct {
	// Kernel is "rbf" (default) or "laplacian": any shift-invariant kernel
	// with a spectral distribution.
	Kernel string
	// Gamma is the kernel width γ; 0 means scikit-learn's "scale" rule
	// γ = 1/(d·Var(X)) computed on the training data.
	Gamma float64
	// Features is D, the number of random features (default 2000).
	Features int
	// Map is "rff" (default) or "orf".
	Map string
	// Solver is "batch" (default: the exact empirical mean embedding, one
	// streaming pass) or "sgd" (Algorithm 1 of the paper).
	Solver string
	// Iterations is T for the SGD solver. When 0, T comes from Epsilon as
	// ⌈M²/ε²⌉; when both are 0, T = 1000.
	Iterations int
	// Epsilon is the target accuracy ε of ‖w_T − w*‖ (Theorem 1).
	Epsilon float64
	// Radius is M, the bound of the kernel (k(x,x) ≤ M²) and radius of the
	// ball the SGD iterate is projected onto. Default 1, the bound of every
	// normalised shift-invariant kernel.
	Radius float64
	// ChunkRows is the number of rows transformed at a time (default 512):
	// the feature matrix never holds more than ChunkRows × D values per
	// worker.
	ChunkRows int
	// ThresholdRows caps the training rows scored to set the threshold in a
	// batch fit (default 10,000; rows drawn at random when n is larger;
	// negative means all rows). The SGD solver scores exactly the T rows it
	// drew, so its fit stays independent of n.
	ThresholdRows int
	// Contamination is the expected share of anomalies in the training data
	// (default 0.1), used to set the threshold.
	Contamination float64
	// Src is the source of randomness for the feature map and the SGD
	// samples. nil means a PCG source seeded with 0.
	Src rand.Source
	// Progress, if not nil, is told about the rows processed.
	Progress detector.ProgressFunc
}

// Detector is the EXPoSE anomaly detector: score(y) = −⟨φ(y), w⟩ with w the
// (approximate) kernel mean embedding of the training data.
type Detector struct {
	cfg      Config // resolved defaults; Gamma stays as given (0 = scale)
	rng      *rand.Rand
	gamma    float64 // resolved at Fit
	fmap     randfeat.Map
	w        []float64
	n        int // rows folded into w (batch/partial) or SGD iterations done
	dim      int
	thresh   float64
	fitted   bool
	progress detector.ProgressFunc
}

var _ detector.Detector = (*Detector)(nil)
var _ detector.PartialFitter = (*Detector)(nil)

// New validates cfg and returns an unfitted detector.
func New(cfg Config) (*Detector, error) {
	if cfg.Kernel == "" {
		cfg.Kernel = "rbf"
	}
	if cfg.Kernel != "rbf" && cfg.Kernel != "gaussian" && cfg.Kernel != "laplacian" {
		return nil, fmt.Errorf("expose: kernel %q is not shift-invariant with a known spectrum; use rbf or laplacian", cfg.Kernel)
	}
	if cfg.Gamma < 0 || math.IsNaN(cfg.Gamma) || math.IsInf(cfg.Gamma, 0) {
		return nil, fmt.Errorf("expose: gamma %v must be positive (or 0 for scale)", cfg.Gamma)
	}
	if cfg.Features == 0 {
		cfg.Features = 2000
	}
	if cfg.Features < 1 {
		return nil, fmt.Errorf("expose: features %d must be at least 1", cfg.Features)
	}
	if cfg.Map == "" {
		cfg.Map = RFF
	}
	if cfg.Map != RFF && cfg.Map != ORF {
		return nil, fmt.Errorf("expose: map %q must be rff or orf", cfg.Map)
	}
	if cfg.Map == ORF && cfg.Kernel == "laplacian" {
		return nil, errors.New("expose: map orf needs an isotropic kernel (rbf); the laplacian kernel's spectrum is not rotation invariant")
	}
	if cfg.Solver == "" {
		cfg.Solver = Batch
	}
	if cfg.Solver != Batch && cfg.Solver != SGD {
		return nil, fmt.Errorf("expose: solver %q must be batch or sgd", cfg.Solver)
	}
	if cfg.Radius == 0 {
		cfg.Radius = 1
	}
	if !(cfg.Radius > 0) || math.IsInf(cfg.Radius, 0) {
		return nil, fmt.Errorf("expose: radius %v must be positive", cfg.Radius)
	}
	if cfg.Iterations < 0 {
		return nil, fmt.Errorf("expose: iterations %d must be positive", cfg.Iterations)
	}
	if cfg.Epsilon < 0 || math.IsNaN(cfg.Epsilon) {
		return nil, fmt.Errorf("expose: epsilon %v must be positive", cfg.Epsilon)
	}
	if cfg.Iterations == 0 {
		if cfg.Epsilon > 0 {
			t := math.Ceil(cfg.Radius * cfg.Radius / (cfg.Epsilon * cfg.Epsilon))
			if t > 1e9 {
				return nil, fmt.Errorf("expose: epsilon %v asks for %.3g iterations; choose a larger epsilon", cfg.Epsilon, t)
			}
			cfg.Iterations = int(t)
		} else {
			cfg.Iterations = 1000
		}
	}
	if cfg.ChunkRows == 0 {
		cfg.ChunkRows = 512
	}
	if cfg.ChunkRows < 1 {
		return nil, fmt.Errorf("expose: chunk rows %d must be positive", cfg.ChunkRows)
	}
	if cfg.ThresholdRows == 0 {
		cfg.ThresholdRows = 10000
	}
	c, err := detector.Contamination(cfg.Contamination)
	if err != nil {
		return nil, fmt.Errorf("expose: %w", err)
	}
	cfg.Contamination = c
	src := cfg.Src
	if src == nil {
		src = rand.NewPCG(0, 0)
	}
	return &Detector{cfg: cfg, rng: rand.New(src), progress: cfg.Progress}, nil
}

// Iterations returns T, the number of SGD iterations a fit performs.
func (d *Detector) Iterations() int { return d.cfg.Iterations }

// SetProgress installs a progress callback (used by the command line).
func (d *Detector) SetProgress(p detector.ProgressFunc) { d.progress = p }

// Threshold returns the score above which a row is flagged, set by Fit.
func (d *Detector) Threshold() float64 { return d.thresh }

// Embedding returns a copy of w, the fitted mean embedding in feature space.
func (d *Detector) Embedding() []float64 { return append([]float64(nil), d.w...) }

// Gamma returns the kernel width used (resolved from the data under the
// scale rule). It is 0 before Fit.
func (d *Detector) Gamma() float64 { return d.gamma }

// FeatureMap returns the fitted random feature map (nil before Fit).
func (d *Detector) FeatureMap() randfeat.Map {
	return d.fmap
}

func (d *Detector) newKernel(gamma float64) kernel.ShiftInvariant {
	if d.cfg.Kernel == "laplacian" {
		return kernel.Laplacian{Gamma: gamma}
	}
	return kernel.RBF{Gamma: gamma}
}

// drawMap draws the feature map for dim inputs at width gamma.
func (d *Detector) drawMap(dim int, gamma float64) randfeat.Map {
	src := rngSource{d.rng}
	k := d.newKernel(gamma)
	if d.cfg.Map == ORF {
		return randfeat.NewOrthogonal(k.(kernel.Isotropic), dim, d.cfg.Features, src)
	}
	return randfeat.NewFourier(k, dim, d.cfg.Features, src)
}

// rngSource lets the map draw from the detector's stream.
type rngSource struct{ r *rand.Rand }

func (s rngSource) Uint64() uint64 { return s.r.Uint64() }

// Fit learns the embedding of the rows of X. It draws a new feature map, so
// two fits of one detector use different maps; build a new detector with the
// same seed to reproduce a fit.
func (d *Detector) Fit(ctx context.Context, X mat.Matrix) error {
	if err := detector.CheckMatrix(X, 0); err != nil {
		return err
	}
	n, dim := X.Dims()
	gamma := d.cfg.Gamma
	if gamma == 0 {
		gamma = d.scaleGamma(X, n)
	}
	fm := d.drawMap(dim, gamma)
	var (
		w     []float64
		count int
		rows  []int // training rows scored for the threshold; nil = all
		err   error
	)
	switch d.cfg.Solver {
	case Batch:
		w, err = sumFeatures(ctx, fm, X, d.cfg.ChunkRows, d.progress)
		if err != nil {
			return err
		}
		floats.Scale(1/float64(n), w)
		count = n
		if lim := d.thresholdCap(); n > lim {
			rows = sampleWithoutReplacement(d.rng, n, lim)
		}
	case SGD:
		smp := &sampler{rng: d.rng, n: n}
		w = make([]float64, fm.Dim())
		rows, err = sgd(ctx, w, 0, fm, X, d.cfg.Iterations, smp.next, d.cfg.Radius, d.cfg.ChunkRows, d.thresholdCap(), d.progress)
		if err != nil {
			return err
		}
		count = d.cfg.Iterations
	}
	th, err := threshold(ctx, fm, w, X, rows, d.cfg)
	if err != nil {
		return err
	}
	d.gamma, d.fmap, d.w, d.n, d.dim, d.thresh = gamma, fm, w, count, dim, th
	d.fitted = true
	return nil
}

// scaleSampleRows is the most training rows the SGD solver reads to resolve
// gamma = scale.
const scaleSampleRows = 10000

// scaleGamma resolves gamma = scale on the training data: on every row for
// the batch solver, and for the SGD solver on a uniform sample of at most
// scaleSampleRows rows (all rows when n is smaller), so an SGD fit reads
// O(T) rows, not O(n).
func (d *Detector) scaleGamma(X mat.Matrix, n int) float64 {
	if d.cfg.Solver == SGD && n > scaleSampleRows {
		return kernel.ScaleGamma(gatherRows(X, sampleWithoutReplacement(d.rng, n, scaleSampleRows)))
	}
	return kernel.ScaleGamma(X)
}

// thresholdCap is the most training rows scored to set the threshold.
func (d *Detector) thresholdCap() int {
	if d.cfg.ThresholdRows < 0 {
		return math.MaxInt
	}
	return d.cfg.ThresholdRows
}

// PartialFit folds more rows into the model; on an unfitted detector it
// starts a new one (drawing the feature map and resolving gamma from X).
// With the batch solver w stays the exact mean of every row seen; with the
// SGD solver Algorithm 1 continues from its current iterate and step size
// over the rows of X in order. The threshold is re-estimated from the scores
// of X, the most recent data.
func (d *Detector) PartialFit(ctx context.Context, X mat.Matrix) error {
	if err := detector.CheckMatrix(X, d.dim); err != nil {
		return err
	}
	n, dim := X.Dims()
	fm, w, seen := d.fmap, append([]float64(nil), d.w...), d.n
	gamma := d.gamma
	if !d.fitted {
		gamma = d.cfg.Gamma
		if gamma == 0 {
			gamma = kernel.ScaleGamma(X)
		}
		fm = d.drawMap(dim, gamma)
		w, seen = make([]float64, fm.Dim()), 0
	}
	switch d.cfg.Solver {
	case Batch:
		s, err := sumFeatures(ctx, fm, X, d.cfg.ChunkRows, d.progress)
		if err != nil {
			return err
		}
		tot := float64(seen + n)
		floats.Scale(float64(seen)/tot, w)
		floats.AddScaled(w, 1/tot, s)
	case SGD:
		next := 0
		inOrder := func(dst []int) []int {
			for i := range dst {
				dst[i] = next
				next++
			}
			return dst
		}
		if _, err := sgd(ctx, w, seen, fm, X, n, inOrder, d.cfg.Radius, d.cfg.ChunkRows, 0, d.progress); err != nil {
			return err
		}
	}
	th, err := threshold(ctx, fm, w, X, nil, d.cfg)
	if err != nil {
		return err
	}
	d.gamma, d.fmap, d.w, d.n, d.dim, d.thresh = gamma, fm, w, seen+n, dim, th
	d.fitted = true
	return nil
}

// threshold scores the given training rows (all when rows is nil) with the
// model (fm, w) and returns the threshold for the contamination rate.
func threshold(ctx context.Context, fm randfeat.Map, w []float64, X mat.Matrix, rows []int, cfg Config) (float64, error) {
	var sub mat.Matrix = X
	if rows != nil {
		sub = gatherRows(X, rows)
	}
	n, _ := sub.Dims()
	s := make([]float64, n)
	if err := scoreInto(ctx, s, fm, w, sub, cfg.ChunkRows); err != nil {
		return 0, err
	}
	return detector.ThresholdFromScores(s, cfg.Contamination), nil
}

// Score writes −⟨φ(y), w⟩ for every row y of X into dst.
func (d *Detector) Score(dst []float64, X mat.Matrix) ([]float64, error) {
	if !d.fitted {
		return nil, detector.ErrNotFitted
	}
	if err := detector.CheckMatrix(X, d.dim); err != nil {
		return nil, err
	}
	n, _ := X.Dims()
	dst = detector.ScoreDst(dst, n)
	err := scoreInto(context.Background(), dst, d.fmap, d.w, X, d.cfg.ChunkRows)
	return dst, err
}

// scoreInto maps X chunk by chunk on all cores and writes −⟨φ(x), w⟩ into
// dst, checking ctx between chunks.
func scoreInto(ctx context.Context, dst []float64, fm randfeat.Map, w []float64, X mat.Matrix, chunk int) error {
	n, _ := X.Dims()
	nchunks := (n + chunk - 1) / chunk
	workers := min(runtime.GOMAXPROCS(0), nchunks)
	var wg sync.WaitGroup
	for wk := 0; wk < workers; wk++ {
		wg.Add(1)
		go func(wk int) {
			defer wg.Done()
			var buf mat.Dense
			for k := wk; k < nchunks && ctx.Err() == nil; k += workers {
				lo, hi := k*chunk, min((k+1)*chunk, n)
				z := featuresOf(fm, X, lo, hi, &buf)
				for i := 0; i < hi-lo; i++ {
					dst[lo+i] = -floats.Dot(z.RawRowView(i), w)
				}
			}
		}(wk)
	}
	wg.Wait()
	return ctx.Err()
}

// sumFeatures returns Σ_i φ(x_i) over the rows of X, computed chunk by chunk
// on all cores. Each worker owns a fixed set of chunks (k ≡ worker mod W) and
// its own accumulator, and the accumulators are added in worker order, so
// the result does not depend on scheduling.
func sumFeatures(ctx context.Context, fm randfeat.Map, X mat.Matrix, chunk int, progress detector.ProgressFunc) ([]float64, error) {
	n, _ := X.Dims()
	D := fm.Dim()
	nchunks := (n + chunk - 1) / chunk
	workers := min(runtime.GOMAXPROCS(0), nchunks)
	sums := make([][]float64, workers)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		done int
	)
	for wk := 0; wk < workers; wk++ {
		wg.Add(1)
		go func(wk int) {
			defer wg.Done()
			acc := make([]float64, D)
			var buf mat.Dense
			for k := wk; k < nchunks; k += workers {
				if ctx.Err() != nil {
					return
				}
				lo, hi := k*chunk, min((k+1)*chunk, n)
				z := featuresOf(fm, X, lo, hi, &buf)
				for i := 0; i < hi-lo; i++ {
					floats.Add(acc, z.RawRowView(i))
				}
				if progress != nil {
					mu.Lock()
					done += hi - lo
					progress("embedding", done, n)
					mu.Unlock()
				}
			}
			sums[wk] = acc
		}(wk)
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	total := sums[0]
	for _, s := range sums[1:] {
		floats.Add(total, s)
	}
	return total, nil
}

// sgd runs T iterations of Algorithm 1 from iterate w after t0 completed
// iterations: w ← (1 − 1/t) w + (1/t) φ(x_t), then w is projected onto the
// ball of radius M. next fills a slice with the rows to visit next (the
// sampler, or the rows in order). Features are computed a chunk of rows at
// a time, with ctx checked between chunks; the updates are sequential. It
// returns the first keep rows visited (a uniform sample of the data when the
// rows are drawn at random), for the threshold.
func sgd(ctx context.Context, w []float64, t0 int, fm randfeat.Map, X mat.Matrix, T int, next func([]int) []int, M float64, chunk, keep int, progress detector.ProgressFunc) ([]int, error) {
	var (
		buf  mat.Dense
		kept []int
		idx  = make([]int, chunk)
	)
	t := t0
	for done := 0; done < T; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rows := next(idx[:min(chunk, T-done)])
		if len(kept) < keep {
			kept = append(kept, rows[:min(len(rows), keep-len(kept))]...)
		}
		sub := gatherRows(X, rows)
		z := featuresOf(fm, sub, 0, len(rows), &buf)
		for i := range rows {
			t++
			g := 1 / float64(t)
			floats.Scale(1-g, w)
			floats.AddScaled(w, g, z.RawRowView(i))
			// ‖w‖ ≤ M·√2 or so: no overflow to guard against, so the plain
			// √⟨w, w⟩ (a SIMD dot) replaces the scaled floats.Norm.
			if nrm := math.Sqrt(floats.Dot(w, w)); nrm > M {
				floats.Scale(M/nrm, w)
			}
		}
		done += len(rows)
		if progress != nil {
			progress("sgd", done, T)
		}
	}
	return kept, nil
}

// featuresOf maps rows [lo, hi) of X into buf (resized as needed).
func featuresOf(fm randfeat.Map, X mat.Matrix, lo, hi int, buf *mat.Dense) *mat.Dense {
	sub := rowSlice(X, lo, hi)
	D := fm.Dim()
	if r, c := buf.Dims(); buf.IsEmpty() || r < hi-lo || c != D {
		buf.Reset()
		buf.ReuseAs(hi-lo, D)
	}
	z := buf.Slice(0, hi-lo, 0, D).(*mat.Dense)
	fm.Transform(z, sub)
	return z
}

// rowSlice returns rows [lo, hi) of X without copying where the type allows.
func rowSlice(X mat.Matrix, lo, hi int) mat.Matrix {
	_, c := X.Dims()
	switch m := X.(type) {
	case *sparse.CSR:
		return m.SliceRows(lo, hi)
	case *mat.Dense:
		return m.Slice(lo, hi, 0, c)
	}
	out := mat.NewDense(hi-lo, c, nil)
	for i := lo; i < hi; i++ {
		for j := 0; j < c; j++ {
			out.Set(i-lo, j, X.At(i, j))
		}
	}
	return out
}

// gatherRows copies the listed rows of X into a new matrix of the same kind
// (CSR stays CSR).
func gatherRows(X mat.Matrix, rows []int) mat.Matrix {
	_, c := X.Dims()
	if s, ok := X.(*sparse.CSR); ok {
		b := sparse.NewBuilder(c)
		for _, r := range rows {
			ind, val := s.RowNonZeros(r)
			if err := b.AddRow(ind, val); err != nil {
				panic("expose: " + err.Error()) // rows of a valid CSR are always valid
			}
		}
		return b.Build(c)
	}
	out := mat.NewDense(len(rows), c, nil)
	if rm, ok := X.(mat.RawRowViewer); ok {
		for i, r := range rows {
			copy(out.RawRowView(i), rm.RawRowView(r))
		}
		return out
	}
	for i, r := range rows {
		for j := 0; j < c; j++ {
			out.Set(i, j, X.At(r, j))
		}
	}
	return out
}

// sampler draws training rows uniformly without replacement, in passes over
// the data: within a pass no row repeats, and a new pass starts when all n
// rows have been drawn. It is a partial Fisher–Yates shuffle over a sparse
// map of displaced entries, so drawing k rows costs O(k) time and memory
// whatever n is.
type sampler struct {
	rng     *rand.Rand
	n       int
	i       int         // rows drawn in this pass
	swapped map[int]int // position → row, where it differs from the identity
}

// next fills dst with the next rows and returns it.
func (s *sampler) next(dst []int) []int {
	for k := range dst {
		if s.i == s.n || s.swapped == nil {
			s.i, s.swapped = 0, map[int]int{}
		}
		at := func(p int) int {
			if v, ok := s.swapped[p]; ok {
				return v
			}
			return p
		}
		j := s.i + s.rng.IntN(s.n-s.i)
		dst[k] = at(j)
		s.swapped[j] = at(s.i)
		s.i++
	}
	return dst
}

// sampleWithoutReplacement draws k distinct rows of [0, n) (k ≤ n): the
// first k draws of a fresh sampler.
func sampleWithoutReplacement(rng *rand.Rand, n, k int) []int {
	return (&sampler{rng: rng, n: n}).next(make([]int, k))
}
