package kde

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/internal/fastmath"
	"github.com/kernelad/anomaly/internal/parallel"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/param"
)

// Rule selects how Fit chooses the bandwidth when Config.Bandwidth is 0.
type Rule int

const (
	// ScaleScott, the default, is the ScaleWidth width shrunk at Scott's
	// rate: h = √(d·Var(X)/2)·n^(−1/(d+4)). The spread and the dimension
	// set the width as gamma = scale does; the factor makes it shrink with
	// the number of rows n at the rate of Scott's rule (the AMISE-optimal
	// rate of a Gaussian reference density), so the estimate converges to
	// the density as n grows, where ScaleWidth's fixed width does not.
	// Chosen by make defaults and checked on held-out data (see the
	// package documentation).
	ScaleScott Rule = iota
	// ScaleWidth is the width the kernel methods' gamma = scale gives: the
	// Gaussian kernel exp(−‖x−y‖²/(2h²)) with 1/(2h²) = 1/(d·Var(X)), i.e.
	// h = √(d·Var(X)/2), Var over all entries (kernel.ScaleGamma). The
	// default before ScaleScott.
	ScaleWidth
	// Scott is scikit-learn's bandwidth='scott': the bare factor
	// n^(−1/(d+4)) (not multiplied by the data's spread).
	Scott
	// Silverman is scikit-learn's bandwidth='silverman': the bare factor
	// (n(d+2)/4)^(−1/(d+4)).
	Silverman
	// CV maximises the leave-one-out log-likelihood over a grid of
	// bandwidths (see CVGrid and the package documentation).
	CV
)

// Algorithm selects the scorer.
type Algorithm int

const (
	// Auto uses Exact when RTol and ATol are both 0 and Tree otherwise.
	Auto Algorithm = iota
	// Exact sums the kernel over every training row (blocked, on all cores).
	Exact
	// Tree walks a kd-tree and stops refining a node once its contribution
	// is known within RTol and ATol; exact (to round-off) when both are 0.
	Tree
)

// Config configures a kernel density detector. The zero value is a Gaussian
// kernel with the scale_scott bandwidth on standardised features (the scale
// stage's default), the exact scorer and contamination 0.1.
type Config struct {
	// Kernel is the smoothing kernel (default Gaussian).
	Kernel Kernel
	// Bandwidth h > 0 fixes the bandwidth; 0 lets Rule choose it at Fit.
	Bandwidth float64
	// Rule chooses the bandwidth when Bandwidth is 0 (default ScaleScott).
	Rule Rule
	// CVGrid lists the candidate bandwidths for Rule CV; empty means the
	// default grid: 21 values h_S·10^(−1.5 + 0.1k), k = 0..20, around
	// Scott's rule of thumb h_S = σ̄·n^(−1/(d+4)) with σ̄ the mean standard
	// deviation of the columns.
	CVGrid []float64
	// CVRows caps the rows whose leave-one-out density is evaluated for CV
	// (every row of the training set is still in each sum); 0 means 1000.
	// The rows are evenly spaced through the training set, so no random
	// choice is involved.
	CVRows int
	// ThresholdRows caps the training rows scored to set the threshold
	// (default 10,000; −1 means all rows), evenly spaced through the
	// training set as CVRows's are. Scoring every training row costs n
	// density evaluations over n rows: a fit of 300,000 rows did not end
	// in 5 minutes. The threshold is a quantile of the scores, which the
	// capped rows estimate (the rank of the 90% quantile of 10,000 rows
	// is off by about ±0.3% of n).
	ThresholdRows int
	// Algorithm selects the scorer (default Auto).
	Algorithm Algorithm
	// RTol and ATol are the tree scorer's tolerances, as scikit-learn's:
	// the density p̂(x) it returns satisfies |p̂(x) − p(x)| ≤ ATol + RTol·p(x)
	// (ATol in units of the normalised density). Both must be ≥ 0.
	RTol, ATol float64
	// LeafSize is the tree's leaf size: leaves hold between LeafSize and
	// 2·LeafSize − 1 rows (fewer when n < LeafSize; more when the rows of a
	// node are all identical and cannot be split). 0 means 40.
	LeafSize int
	// Common holds the contamination rate, the scale stage, the sample
	// and the progress callback (see the package documentation for the
	// stages).
	method.Common
}

// Bind declares the parameters of the kernel density detector.
func (c *Config) Bind(s *param.Set) {
	param.Enum(s, &c.Kernel, "kernel", kernelNames[:], []Kernel{Gaussian, Tophat, Epanechnikov, Exponential, Linear, Cosine},
		"smoothing kernel: "+strings.Join(kernelNames[:], ", "))
	s.Var(bandwidthValue{c}, "bandwidth", "scale_scott",
		"a number > 0, or the rule that picks it: scale_scott (√(d·Var(X)/2)·n^(−1/(d+4)): the scale width shrunk with the n rows at Scott's rate), scale (√(d·Var(X)/2), the width of gamma=scale), scott, silverman (scikit-learn's bare factors) or cv (leave-one-out likelihood over a grid)")
	param.Enum(s, &c.Algorithm, "algorithm", []string{"auto", "exact", "tree"}, []Algorithm{Auto, Exact, Tree},
		"exact, tree, or auto (exact unless rtol or atol is set)")
	s.Int(&c.ThresholdRows, "threshold_rows", 10000, param.AtLeast(1).Or(-1, "all rows"), "training rows scored to set the threshold, evenly spaced")
	s.Float(&c.RTol, "rtol", 0, param.AtLeast(0), "tree: relative tolerance on the density")
	s.Float(&c.ATol, "atol", 0, param.AtLeast(0), "tree: absolute tolerance on the density")
	s.Int(&c.LeafSize, "leaf_size", 40, param.AtLeast(1), "tree: leaves hold leaf_size to 2·leaf_size−1 rows")
}

var ruleNames = []string{"scale_scott", "scale", "scott", "silverman", "cv"}

// bandwidthValue binds Bandwidth and Rule to the one parameter bandwidth.
type bandwidthValue struct{ c *Config }

func (b bandwidthValue) Set(t string) error {
	for i, n := range ruleNames {
		if t == n {
			b.c.Bandwidth, b.c.Rule = 0, Rule(i)
			return nil
		}
	}
	h, err := strconv.ParseFloat(t, 64)
	if err != nil || !(h > 0) || math.IsInf(h, 0) {
		return fmt.Errorf("must be a number > 0, scale_scott, scale, scott, silverman or cv")
	}
	b.c.Bandwidth = h
	return nil
}

func (b bandwidthValue) String() (string, bool) {
	if b.c.Bandwidth > 0 {
		return strconv.FormatFloat(b.c.Bandwidth, 'g', -1, 64), true
	}
	if b.c.Rule >= ScaleScott && b.c.Rule <= CV {
		return ruleNames[b.c.Rule], true
	}
	return fmt.Sprint(int(b.c.Rule)), true
}

func (b bandwidthValue) Resolve() (bool, error) {
	if math.IsNaN(b.c.Bandwidth) || math.IsInf(b.c.Bandwidth, 0) || b.c.Bandwidth < 0 {
		return false, fmt.Errorf("must be a finite number > 0 (or 0 for a rule)")
	}
	if b.c.Rule < ScaleScott || b.c.Rule > CV {
		return false, fmt.Errorf("invalid bandwidth rule %d", int(b.c.Rule))
	}
	return b.c.Bandwidth == 0 && b.c.Rule == ScaleScott, nil
}

// KDE is a kernel density detector: score(x) = −log p̂(x) with
// p̂(x) = (1/n) Σ_i c(h,d) K(‖x − x_i‖/h).
type KDE struct {
	method.Base[*model]
	cfg Config
}

// model is a fitted density estimate: the centred training rows and what
// scoring needs. It is never changed once a fit has returned it.
type model struct {
	kern    Kernel
	h       float64
	logNorm float64   // log c(h, d) − log n
	mean    []float64 // column means of the (scaled) training rows
	// x holds the centred training rows, n × d and contiguous: in their
	// order for the exact scorer, in the tree's order (tree.pos maps a
	// row to its place) for the tree scorer.
	x          *mat.Dense
	sqn        []float64 // ‖x_i‖² (exact scorer; nil with a tree)
	tree       *kdTree   // nil for the exact scorer
	rtol, atol float64   // the tree's tolerances
}

// New validates cfg and returns an unfitted detector.
func New(cfg Config) (*KDE, error) {
	for _, h := range cfg.CVGrid {
		if !(h > 0) || math.IsInf(h, 0) {
			return nil, fmt.Errorf("kde: CV grid value %v must be a finite number > 0", h)
		}
	}
	if cfg.CVRows < 0 {
		return nil, fmt.Errorf("kde: CVRows %d must be ≥ 0", cfg.CVRows)
	}
	k := &KDE{cfg: cfg}
	k.cfg.CVGrid = append([]float64(nil), cfg.CVGrid...)
	return method.Init(k, &k.Base, "kde", &k.cfg, method.Hooks[*model]{Fit: k.fit, Decode: k.decode, Densify: true})
}

// Config returns the resolved configuration.
func (k *KDE) Config() Config { return k.cfg }

func (k *KDE) leafSize() int {
	if k.cfg.LeafSize == 0 {
		return 40
	}
	return k.cfg.LeafSize
}

func (k *KDE) useTree() bool {
	switch k.cfg.Algorithm {
	case Tree:
		return true
	case Exact:
		return false
	}
	return k.cfg.RTol > 0 || k.cfg.ATol > 0
}

// Fit keeps the training rows (centred), chooses the bandwidth, builds the
// tree when the scorer needs it and sets the threshold from the training
// scores (each training row's own kernel counts in its density, as in
// scikit-learn's score_samples).
func (k *KDE) Fit(ctx context.Context, X mat.Matrix) error { return k.Base.Fit(ctx, X) }

// fit holds the scaled training rows in one dense matrix (Fitting.Dense),
// centres it in place and scores the training rows from it.
func (k *KDE) fit(ctx context.Context, f *method.Fitting) (*model, []float64, error) {
	x, err := f.Dense(ctx)
	if err != nil {
		return nil, nil, err
	}
	n, d := x.Dims()
	if raw := x.RawMatrix(); raw.Stride != d {
		x = mat.DenseCopyOf(x) // contiguous rows (the tree and the state need them)
	}
	if err := kernel.CheckRange(x); err != nil {
		return nil, nil, fmt.Errorf("kde: %w", err)
	}
	// The width rules read the rows before they are centred (scale's
	// Var(X) is over every entry of the scaled rows).
	h := k.cfg.Bandwidth
	if h == 0 {
		switch k.cfg.Rule {
		case Scott:
			h = kernel.Scott(n, d)
		case Silverman:
			h = kernel.Silverman(n, d)
		case ScaleWidth:
			h = math.Sqrt(0.5 / kernel.ScaleGamma(x))
		case ScaleScott:
			h = math.Sqrt(0.5/kernel.ScaleGamma(x)) * kernel.Scott(n, d)
		}
	}
	mean, err := centre(ctx, x)
	if err != nil {
		return nil, nil, err
	}
	m := &model{kern: k.cfg.Kernel, mean: mean, x: x, rtol: k.cfg.RTol, atol: k.cfg.ATol}
	cv := k.cfg.Bandwidth == 0 && k.cfg.Rule == CV
	if !k.useTree() || cv {
		if m.sqn, err = sqNorms(ctx, x); err != nil {
			return nil, nil, err
		}
	}
	if cv {
		if h, err = k.crossValidate(ctx, f, x, m.sqn); err != nil {
			return nil, nil, err
		}
	}
	if !(h > 0) || math.IsInf(h, 0) {
		return nil, nil, fmt.Errorf("kde: bandwidth %v is not a positive number", h)
	}
	m.h = h
	m.logNorm = m.kern.logNorm(h, d) - math.Log(float64(n))
	if k.useTree() {
		m.sqn = nil
		if m.tree, err = buildTree(ctx, x, k.leafSize(), f.Report); err != nil {
			return nil, nil, err
		}
	}
	train, err := m.trainScores(ctx, f, k.cfg.ThresholdRows)
	if err != nil {
		return nil, nil, err
	}
	return m, train, nil
}

// centre subtracts the column means from the rows of x in place and
// returns the means: each column summed down the rows in order, then
// divided by the number of rows.
func centre(ctx context.Context, x *mat.Dense) ([]float64, error) {
	n, d := x.Dims()
	mean := make([]float64, d)
	step := checkRows(d)
	for i := 0; i < n; i++ {
		if i%step == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		for j, v := range x.RawRowView(i) {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	for i := 0; i < n; i++ {
		if i%step == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		row := x.RawRowView(i)
		for j := range row {
			row[j] -= mean[j]
		}
	}
	return mean, nil
}

// sqNorms returns ‖x_i‖² for the rows of x, with MulNN's arithmetic (so
// that the squared distance of a row to itself is exactly 0).
func sqNorms(ctx context.Context, x *mat.Dense) ([]float64, error) {
	n, d := x.Dims()
	sqn := make([]float64, n)
	step := checkRows(d)
	for i := range sqn {
		if i%step == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		sqn[i] = fastmath.SumSquares(x.RawRowView(i))
	}
	return sqn, nil
}

// checkRows is the number of rows of d columns a pass over the training
// rows reads between two checks of its context: about 2²⁰ values, a
// millisecond of work.
func checkRows(d int) int { return max(1, (1<<20)/max(d, 1)) }

// trainScores scores the training rows the threshold is set from: every
// row, or ThresholdRows of them evenly spaced (method.EvenRows) when there are
// more. They are read from the model's centred rows, which equal the rows
// Score centres bit for bit (x − mean), so no row is read or scaled again
// and no copy is made; progress is "score", in rows.
func (m *model) trainScores(ctx context.Context, f *method.Fitting, most int) ([]float64, error) {
	n, d := m.x.Dims()
	var idx []int
	if most > 0 && n > most {
		idx = method.EvenRows(n, most)
	}
	rows := n
	if idx != nil {
		rows = len(idx)
	}
	train := make([]float64, rows)
	data := m.x.RawMatrix().Data
	row := func(q []float64, i int) {
		if idx != nil {
			i = idx[i]
		}
		if m.tree != nil {
			i = m.tree.pos[i]
		}
		copy(q, data[i*d:(i+1)*d])
	}
	f.Report("score", 0, rows)
	err := m.score(ctx, train, row, func(done int) { f.Report("score", done, rows) })
	return train, err
}

// Bandwidth returns the fitted bandwidth h (0 before Fit).
func (k *KDE) Bandwidth() float64 {
	if m, ok := k.Model(); ok {
		return m.h
	}
	return 0
}

// Score sets dst[i] = −log p̂(x_i) for the rows of X. Points outside the
// support of a finite-support kernel score +Inf.
func (k *KDE) Score(dst []float64, X mat.Matrix) ([]float64, error) { return k.Base.Score(dst, X) }

// LogDensity sets dst[i] = log p̂(x_i), the normalised log-density, for the
// rows of X (scikit-learn's score_samples).
func (k *KDE) LogDensity(dst []float64, X mat.Matrix) ([]float64, error) {
	dst, err := k.Score(dst, X)
	if err != nil {
		return nil, err
	}
	for i := range dst {
		dst[i] = -dst[i]
	}
	return dst, nil
}

// rowFunc writes row i of a set of query rows, centred with the training
// mean, into q (len d).
type rowFunc func(q []float64, i int)

// Score writes −log p̂ of the rows of X (scaled, not centred) into dst.
func (m *model) Score(ctx context.Context, dst []float64, X mat.Matrix) error {
	sp, _ := X.(*sparse.CSR)
	return m.score(ctx, dst, func(q []float64, i int) {
		if sp != nil { // Base densifies (Hooks.Densify); a direct caller may not
			clear(q)
			ind, val := csr.Row(sp, i)
			for k, j := range ind {
				q[j] = val[k]
			}
		} else {
			mat.Row(q, i, X)
		}
		for j := range q {
			q[j] -= m.mean[j]
		}
	}, nil)
}

// score computes −log p̂ of len(dst) query rows given by row, calling
// progress (when not nil) with the number of rows done, at least every
// 100 ms while it runs and once at the end.
func (m *model) score(ctx context.Context, dst []float64, row rowFunc, progress func(done int)) error {
	if m.tree != nil {
		return m.scoreTree(ctx, dst, row, progress)
	}
	return m.scoreExact(ctx, dst, row, progress)
}

// forBlocks runs nb blocks of br rows of a total of rows on every core
// (parallel.ForBlocksProgress), reporting rows done to progress. A block
// returns early, its work undone, once ctx has ended: forBlocks then
// returns ctx.Err(), even when every block had been handed out.
func forBlocks(ctx context.Context, nb, br, rows int, newWorker func() func(int), progress func(done int)) error {
	var p func(done, total int)
	if progress != nil {
		p = func(done, total int) { progress(min(done*br, rows)) }
	}
	if err := parallel.ForBlocksProgress(ctx, nb, newWorker, p); err != nil {
		return err
	}
	return ctx.Err()
}

// logSumExp returns log Σ exp(v) over the finite values of v (−Inf when
// all are −Inf).
func logSumExp(v []float64) float64 {
	mx := math.Inf(-1)
	for _, x := range v {
		if x > mx {
			mx = x
		}
	}
	if math.IsInf(mx, -1) {
		return mx
	}
	var s float64
	for _, x := range v {
		s += math.Exp(x - mx)
	}
	return mx + math.Log(s)
}
