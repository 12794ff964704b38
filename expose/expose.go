package expose

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/james-bowman/sparse"
	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/param"
	"github.com/kernelad/anomaly/randfeat"
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
	// Kernel is the shift-invariant kernel, rbf (default) or laplacian,
	// with its width γ or the rule that picks it from the training data:
	// scale (default: scikit-learn's γ = 1/(d·Var(X))) or median.
	Kernel kernel.Spec
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
	// Epsilon is the target accuracy ε of ‖w_T − w*‖ (Theorem 1); 0 means
	// unset.
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
	// −1 means all rows). The SGD solver scores exactly the T rows it
	// drew, so its fit stays independent of n.
	ThresholdRows int
	// Regularizer adds λΩ(w) to the objective (section 4.2 of the paper):
	// "none" (default: the paper's objective), "l1" (λ‖w‖₁) or
	// "roughness" (λ⟨D²w, D²w⟩); see the package documentation for the
	// solutions.
	Regularizer string
	// Lambda ≥ 0 is the regulariser's weight λ (0: none).
	Lambda float64
	// Src is the source of randomness for the feature map and the SGD
	// samples. nil means a PCG source seeded with 0.
	Src rand.Source
	// Common holds the contamination rate, the scale stage and the
	// progress callback (rows processed).
	detector.Common
}

// DefaultWidthRule is the width rule of a Config whose Kernel names
// neither γ nor a rule (Kernel.Rule ""): the scale width shrunk at Scott's
// rate (kernel.ScaleScottRule), as kde's default bandwidth.
const DefaultWidthRule = kernel.ScaleScottRule

// Bind declares the parameters of EXPoSE. iterations defaults to 1000 only
// when epsilon is not set (T then comes from ε).
func (c *Config) Bind(s *param.Set) {
	c.Kernel.Bind(s, kernel.Choices{Kinds: []string{"rbf", "laplacian"}, Rules: []string{DefaultWidthRule, kernel.ScaleRule, kernel.MedianRule}})
	s.Int(&c.Features, "features", 2000, param.AtLeast(1), "number of random features D")
	s.Choice(&c.Map, "map", RFF, []string{RFF, ORF}, nil, "random feature map: rff or orf (orthogonal, rbf only)")
	s.Choice(&c.Solver, "solver", Batch, []string{Batch, SGD}, nil, "batch (exact mean embedding) or sgd (Algorithm 1)")
	if c.Epsilon > 0 && c.Iterations == 0 {
		s.OptionalInt(&c.Iterations, "iterations", param.Interval(1, MaxIterations, false, false), "SGD iterations T (from epsilon when that is set)")
	} else {
		s.Int(&c.Iterations, "iterations", 1000, param.Interval(1, MaxIterations, false, false), "SGD iterations T (from epsilon when that is set)")
	}
	s.OptionalFloat(&c.Epsilon, "epsilon", param.Above(0), "SGD accuracy ε; T = ⌈M²/ε²⌉ when iterations is not given")
	s.Float(&c.Radius, "radius", 1, param.Above(0), "kernel bound M: the SGD ball radius")
	s.Int(&c.ChunkRows, "chunk", 512, param.AtLeast(1), "rows transformed at a time")
	s.Int(&c.ThresholdRows, "threshold_rows", 10000, param.AtLeast(1).Or(-1, "all rows"), "training rows scored to set the threshold (batch)")
	s.Choice(&c.Regularizer, "regularizer", NoRegularizer, []string{NoRegularizer, L1, Roughness}, nil,
		"regulariser λΩ(w) added to the objective: none, l1 (λ‖w‖₁) or roughness (λ⟨D²w, D²w⟩)")
	s.Float(&c.Lambda, "lambda", 0, param.AtLeast(0), "weight λ of the regulariser")
	s.Seed(&c.Src, "seed", 0, func(seed uint64) rand.Source { return rand.NewPCG(seed, seed) }, "seed of the feature map and the SGD samples")
}

// EXPoSE is the EXPoSE anomaly detector: score(y) = −⟨φ(y), w⟩ with w the
// (approximate) kernel mean embedding of the training data.
type EXPoSE struct {
	detector.Base
	cfg   Config // resolved
	rng   *rand.Rand
	gamma float64 // resolved at Fit
	fmap  randfeat.Map
	reg   regularizer
	w     []float64 // the (regularised) embedding the scores use
	mean  []float64 // batch: the plain mean of φ, from which w is solved
	n     int       // rows folded into w (batch/partial) or SGD iterations done
}

var _ detector.Detector = (*EXPoSE)(nil)
var _ detector.PartialFitter = (*EXPoSE)(nil)

// MaxIterations bounds T, given or from epsilon: at the default D = 2000
// an iteration takes about 10 µs here, so 10⁹ are hours of fitting; more
// is a mistake in the parameters, not a fit to wait for.
const MaxIterations = 1e9

// New validates cfg and returns an unfitted detector.
func New(cfg Config) (*EXPoSE, error) {
	if cfg.Iterations == 0 && cfg.Epsilon > 0 && !math.IsInf(cfg.Epsilon, 0) {
		r := cfg.Radius
		if r == 0 {
			r = 1
		}
		// (M/ε)², not M²/ε²: the squares overflow or underflow for
		// M and ε near the ends of float64 (1e308/1e308 made NaN, and
		// the iteration count −2^63). At least one iteration.
		q := r / cfg.Epsilon
		t := max(math.Ceil(q*q), 1)
		if !(t <= MaxIterations) {
			return nil, &param.Error{Method: "expose", Name: "epsilon", Value: fmt.Sprint(cfg.Epsilon),
				Reason: fmt.Sprintf("asks for %.3g iterations; choose a larger epsilon", t)}
		}
		cfg.Iterations = int(t)
	}
	b, err := detector.NewBase("expose", &cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Map == ORF && cfg.Kernel.Kind == "laplacian" {
		return nil, errors.New("expose: map orf needs an isotropic kernel (rbf); the laplacian kernel's spectrum is not rotation invariant")
	}
	return &EXPoSE{Base: b, cfg: cfg, rng: rand.New(cfg.Src)}, nil
}

// Config returns the resolved configuration.
func (d *EXPoSE) Config() Config { return d.cfg }

// Iterations returns T, the number of SGD iterations a fit performs.
func (d *EXPoSE) Iterations() int { return d.cfg.Iterations }

// Embedding returns a copy of w, the fitted mean embedding in feature space.
func (d *EXPoSE) Embedding() []float64 { return append([]float64(nil), d.w...) }

// Gamma returns the kernel width used (resolved from the data under the
// scale rule). It is 0 before Fit.
func (d *EXPoSE) Gamma() float64 { return d.gamma }

// FeatureMap returns the fitted random feature map (nil before Fit).
func (d *EXPoSE) FeatureMap() randfeat.Map {
	return d.fmap
}

func (d *EXPoSE) newKernel(gamma float64) kernel.ShiftInvariant {
	if d.cfg.Kernel.Kind == "laplacian" {
		return kernel.Laplacian{Gamma: gamma}
	}
	return kernel.RBF{Gamma: gamma}
}

// drawMap draws the feature map for dim inputs at width gamma.
func (d *EXPoSE) drawMap(dim int, gamma float64) randfeat.Map {
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
func (d *EXPoSE) Fit(ctx context.Context, X mat.Matrix) error {
	return d.FitWith(ctx, X, d.fit)
}

func (d *EXPoSE) fit(ctx context.Context, X mat.Matrix) ([]float64, error) {
	n, dim := X.Dims()
	gamma, err := d.width(X, n)
	if err != nil {
		return nil, err
	}
	d.CautionIsolating(d.cfg.Kernel.Kind, X, gamma)
	fm := d.drawMap(dim, gamma)
	reg := newRegularizer(d.cfg.Regularizer, d.cfg.Lambda, fm)
	var (
		w, mean []float64
		count   int
		rows    []int // training rows scored for the threshold; nil = all
	)
	switch d.cfg.Solver {
	case Batch:
		mean, err = sumFeatures(ctx, fm, X, d.cfg.ChunkRows, d.cfg.Progress)
		if err != nil {
			return nil, err
		}
		floats.Scale(1/float64(n), mean)
		w = regularized(reg, mean)
		count = n
		if lim := d.thresholdCap(); n > lim {
			rows = sampleWithoutReplacement(d.rng, n, lim)
		}
	case SGD:
		smp := &sampler{rng: d.rng, n: n}
		w = make([]float64, fm.Dim())
		rows, err = sgd(ctx, w, 0, fm, reg, X, d.cfg.Iterations, smp.next, d.cfg.Radius, d.cfg.ChunkRows, d.thresholdCap(), d.cfg.Progress)
		if err != nil {
			return nil, err
		}
		count = d.cfg.Iterations
	}
	train, err := trainScores(ctx, fm, w, X, rows, d.cfg.ChunkRows)
	if err != nil {
		return nil, err
	}
	d.gamma, d.fmap, d.reg, d.w, d.mean, d.n = gamma, fm, reg, w, mean, count
	return train, nil
}

// regularized returns the embedding solved from the mean m: m itself
// without a regulariser, otherwise a solved copy.
func regularized(r regularizer, m []float64) []float64 {
	if !r.active() {
		return m
	}
	w := append([]float64(nil), m...)
	r.solve(w)
	return w
}

// scaleSampleRows is the most training rows the SGD solver reads to resolve
// a width rule.
const scaleSampleRows = 10000

// width resolves the kernel width on the training data: on every row for
// the batch solver, and for the SGD solver on a uniform sample of at most
// scaleSampleRows rows (all rows when n is smaller), so an SGD fit reads
// O(T) rows, not O(n).
// The scale_scott rule's factor n^(2/(d+4)) counts all n rows, not the
// sample's.
func (d *EXPoSE) width(X mat.Matrix, n int) (float64, error) {
	sampled := d.cfg.Kernel.Gamma == 0 && d.cfg.Solver == SGD && n > scaleSampleRows
	if sampled {
		X = gatherRows(X, sampleWithoutReplacement(d.rng, n, scaleSampleRows))
	}
	spec := d.cfg.Kernel // its rule resolved by New (never "")
	scott := sampled && spec.Rule == kernel.ScaleScottRule
	if scott {
		spec.Rule = kernel.ScaleRule // on the sample; the factor below counts all n rows
	}
	g, err := spec.Width(X, rngSource{d.rng})
	if err != nil {
		return 0, fmt.Errorf("expose: %w", err)
	}
	if scott {
		_, dim := X.Dims()
		g = kernel.ScaleScottGamma(g, n, dim)
	}
	return g, nil
}

// thresholdCap is the most training rows scored to set the threshold.
func (d *EXPoSE) thresholdCap() int {
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
func (d *EXPoSE) PartialFit(ctx context.Context, X mat.Matrix) error {
	return d.PartialFitWith(ctx, X, d.partialFit)
}

func (d *EXPoSE) partialFit(ctx context.Context, X mat.Matrix) ([]float64, error) {
	n, dim := X.Dims()
	fm, reg, seen, gamma := d.fmap, d.reg, d.n, d.gamma
	w, mean := append([]float64(nil), d.w...), append([]float64(nil), d.mean...)
	if !d.Fitted() {
		var err error
		if gamma, err = d.cfg.Kernel.Width(X, rngSource{d.rng}); err != nil {
			return nil, fmt.Errorf("expose: %w", err)
		}
		fm = d.drawMap(dim, gamma)
		reg = newRegularizer(d.cfg.Regularizer, d.cfg.Lambda, fm)
		w, mean, seen = make([]float64, fm.Dim()), make([]float64, fm.Dim()), 0
	}
	switch d.cfg.Solver {
	case Batch:
		s, err := sumFeatures(ctx, fm, X, d.cfg.ChunkRows, d.cfg.Progress)
		if err != nil {
			return nil, err
		}
		tot := float64(seen + n)
		floats.Scale(float64(seen)/tot, mean)
		floats.AddScaled(mean, 1/tot, s)
		w = regularized(reg, mean)
	case SGD:
		next := 0
		inOrder := func(dst []int) []int {
			for i := range dst {
				dst[i] = next
				next++
			}
			return dst
		}
		if _, err := sgd(ctx, w, seen, fm, reg, X, n, inOrder, d.cfg.Radius, d.cfg.ChunkRows, 0, d.cfg.Progress); err != nil {
			return nil, err
		}
		mean = nil
	}
	scores, err := trainScores(ctx, fm, w, X, nil, d.cfg.ChunkRows)
	if err != nil {
		return nil, err
	}
	d.gamma, d.fmap, d.reg, d.w, d.mean, d.n = gamma, fm, reg, w, mean, seen+n
	return scores, nil
}

// trainScores scores the given training rows (all when rows is nil) with
// the model (fm, w): the scores the threshold is set from.
func trainScores(ctx context.Context, fm randfeat.Map, w []float64, X mat.Matrix, rows []int, chunk int) ([]float64, error) {
	var sub mat.Matrix = X
	if rows != nil {
		sub = gatherRows(X, rows)
	}
	n, _ := sub.Dims()
	s := make([]float64, n)
	if err := scoreInto(ctx, s, fm, w, sub, chunk); err != nil {
		return nil, err
	}
	return s, nil
}

// Score writes −⟨φ(y), w⟩ for every row y of X into dst.
func (d *EXPoSE) Score(dst []float64, X mat.Matrix) ([]float64, error) {
	return d.ScoreWith(dst, X, func(dst []float64, X mat.Matrix) ([]float64, error) {
		n, _ := X.Dims()
		dst = detector.ScoreDst(dst, n)
		err := scoreInto(context.Background(), dst, d.fmap, d.w, X, d.cfg.ChunkRows)
		return dst, err
	})
}

// scoreInto maps X chunk by chunk on all cores and writes −⟨φ(x), w⟩ into
// dst, checking ctx between chunks.
func scoreInto(ctx context.Context, dst []float64, fm randfeat.Map, w []float64, X mat.Matrix, chunk int) error {
	n, _ := X.Dims()
	chunk = cacheChunk(chunk, fm.Dim())
	nchunks := (n + chunk - 1) / chunk
	workers := min(runtime.GOMAXPROCS(0), nchunks)
	var wg sync.WaitGroup
	for wk := 0; wk < workers; wk++ {
		wg.Add(1)
		go func(wk int) {
			defer wg.Done()
			buf := chunkPool.Get().(*mat.Dense)
			defer chunkPool.Put(buf)
			dm, fused := fm.(randfeat.DotMap)
			for k := wk; k < nchunks && ctx.Err() == nil; k += workers {
				lo, hi := k*chunk, min((k+1)*chunk, n)
				if fused {
					// Features and their inner products with w in one
					// pass over each row.
					dm.TransformDot(dst[lo:hi], rowSlice(X, lo, hi), w, chunkBuf(buf, hi-lo, fm.Dim()))
					for i := lo; i < hi; i++ {
						dst[i] = -dst[i]
					}
					continue
				}
				z := featuresOf(fm, X, lo, hi, buf)
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
	chunk = cacheChunk(chunk, D)
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
			buf := chunkPool.Get().(*mat.Dense)
			defer chunkPool.Put(buf)
			for k := wk; k < nchunks; k += workers {
				if ctx.Err() != nil {
					return
				}
				lo, hi := k*chunk, min((k+1)*chunk, n)
				z := featuresOf(fm, X, lo, hi, buf)
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
func sgd(ctx context.Context, w []float64, t0 int, fm randfeat.Map, reg regularizer, X mat.Matrix, T int, next func([]int) []int, M float64, chunk, keep int, progress detector.ProgressFunc) ([]int, error) {
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
			reg.step(w, z.RawRowView(i), 1/float64(t))
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

// cacheBytes is the size of the feature block a worker maps and consumes
// at a time: small enough to stay in the L2 cache between the cosines and
// the sum or dot product that reads it back. At D = 8,000 a 512-row chunk
// is 32 MB, which went to memory and back: BenchmarkBatchFitScore (10,000
// rows of 32_shuttle) took 152–155 ms that way against 119–126 ms with
// blocks of 4 rows (D = 4,000: 64–73 ms against 60–63).
const cacheBytes = 256 << 10

// cacheChunk returns the rows of a feature block at D features: cacheBytes
// worth, at least 4 (the row block of the product behind the features,
// fastmath.MulNN) and at most chunk (the ChunkRows memory cap).
func cacheChunk(chunk, D int) int {
	return max(1, min(chunk, max(4, cacheBytes/(8*D))))
}

// chunkPool holds the workers' feature buffers (chunk × D) between the
// passes of a fit and its scoring: a fresh buffer is zeroed by the runtime
// and faulted in, which at the default chunk and D (8 MB) cost a fifth of a
// fit + score of 10,000 rows.
var chunkPool = sync.Pool{New: func() any { return new(mat.Dense) }}

// featuresOf maps rows [lo, hi) of X into buf (resized as needed).
func featuresOf(fm randfeat.Map, X mat.Matrix, lo, hi int, buf *mat.Dense) *mat.Dense {
	z := chunkBuf(buf, hi-lo, fm.Dim())
	fm.Transform(z, rowSlice(X, lo, hi))
	return z
}

// chunkBuf returns the first rows × D of buf, resized as needed.
func chunkBuf(buf *mat.Dense, rows, D int) *mat.Dense {
	if r, c := buf.Dims(); buf.IsEmpty() || r < rows || c != D {
		buf.Reset()
		buf.ReuseAs(rows, D)
	}
	return buf.Slice(0, rows, 0, D).(*mat.Dense)
}

// rowSlice returns rows [lo, hi) of X without copying where the type allows.
func rowSlice(X mat.Matrix, lo, hi int) mat.Matrix {
	_, c := X.Dims()
	switch m := X.(type) {
	case *sparse.CSR:
		return csr.SliceRows(m, lo, hi)
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
		b := csr.NewBuilder(c)
		for _, r := range rows {
			ind, val := csr.Row(s, r)
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
