package iforest

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/internal/nprand"
	"github.com/kernelad/anomaly/internal/parallel"
	"github.com/kernelad/anomaly/param"
	"github.com/kernelad/anomaly/scale"
)

// Defaults of the paper (and scikit-learn's IsolationForest).
const (
	DefaultTrees   = 100
	DefaultSamples = 256
)

// Config configures Isolation Forest. The zero value is the default.
type Config struct {
	// Trees is the number of isolation trees; 0 means DefaultTrees.
	Trees int
	// Samples is the subsample size ψ of each tree (capped at the number
	// of training rows); 0 means DefaultSamples.
	Samples int
	// Src drives the subsamples and the splits; nil means seed 0. The
	// seed parameter s makes it NumPy's RandomState(s), and a gonum
	// prng.MT19937 seeded with s is the same stream: either grows the
	// forest scikit-learn's IsolationForest(random_state=s) grows.
	Src rand.Source
	// Precision is the precision the trees compare values in: "double"
	// (the default; float64, a feature is constant on a node when its
	// minimum equals its maximum) or "single" (scikit-learn's trees:
	// values rounded to float32, a feature constant when its range is
	// within 1e-7). Single precision with the seed s grows exactly
	// scikit-learn's forest; it also rounds raw units (a timestamp of
	// 1.7e9 s to 128 s), which double precision does not.
	Precision string
	// Common holds the contamination rate, the scale stage (default none)
	// and the progress callback (stage "trees").
	detector.Common
}

// Bind declares the parameters of Isolation Forest.
func (c *Config) Bind(s *param.Set) {
	s.Int(&c.Trees, "trees", DefaultTrees, param.AtLeast(1), "number of isolation trees")
	s.Int(&c.Samples, "samples", DefaultSamples, param.AtLeast(2), "rows drawn for each tree (capped at the training rows)")
	s.Seed(&c.Src, "seed", 0, nprand.NewSource, "seed of the subsamples and the splits (scikit-learn's random_state)")
	s.Choice(&c.Precision, "precision", Double, []string{Double, Single}, nil, "precision of the comparisons: double, or single as scikit-learn's trees")
}

// The values of Config.Precision.
const (
	Double = "double"
	Single = "single"
)

// node is one node of a tree: an inner node splits on Feature at Value
// (rows with x[Feature] ≤ Value, compared in single precision as
// as the forest's precision, go left); a leaf (Left < 0) holds Size
// training rows at depth Depth.
type node struct {
	Feature     int32
	Left, Right int32
	Size        int32
	Depth       int32
	Value       float64
}

// IForest is a fitted (or unfitted) Isolation Forest.
type IForest struct {
	detector.Base
	cfg    Config
	trees  [][]node
	psi    int // subsample size of the fit
	d      int
	single bool // compare in single precision
}

// New returns an unfitted Isolation Forest.
func New(cfg Config) (*IForest, error) {
	b, err := detector.NewBase("iforest", &cfg)
	if err != nil {
		return nil, err
	}
	return &IForest{Base: b, cfg: cfg}, nil
}

// Config returns the resolved configuration.
func (f *IForest) Config() Config { return f.cfg }

// Fit grows the trees on the rows of X.
func (f *IForest) Fit(ctx context.Context, X mat.Matrix) error {
	return f.FitWith(ctx, X, f.fit)
}

// The bounds of scikit-learn's draws: randint(np.iinfo(np.int32).max) for
// the trees' seeds and randint(0, RAND_R_MAX) for a splitter's state both
// return [0, 2³¹ − 2].
const (
	maxSeed  = math.MaxInt32 - 1
	randRMax = math.MaxInt32 // RAND_R_MAX of sklearn/tree/_utils
)

// featureThreshold is the splitter's FEATURE_THRESHOLD: a feature whose
// maximum on a node's rows is within it of its minimum (in single
// precision) is constant there.
const featureThreshold float32 = 1e-7

func (f *IForest) fit(ctx context.Context, X mat.Matrix) ([]float64, error) {
	single := f.cfg.Precision == Single
	f.single = single
	n, d := X.Dims()
	var trees [][]node
	var err error
	if single {
		trees, err = grow(ctx, f, rowsOf[float32](X), n, d, featureThreshold)
	} else {
		trees, err = grow(ctx, f, rowsOf[float64](X), n, d, 0)
	}
	if err != nil {
		return nil, err
	}
	f.trees, f.psi, f.d = trees, min(f.cfg.Samples, n), d
	if f.psi == 2 {
		// The all-equal warning would blame the scale of the data.
		f.Caution("iforest: each tree draws 2 rows (samples=2, or 2 training rows), so it is one split deep: every row's path, however far the row lies, is one edge long and every score is 2^(−1/c(2)) = 0.5; the forest cannot rank rows (raise samples, or fit on more rows)")
	}
	return f.score(make([]float64, n), X), nil
}

// grow grows the forest on the rows x (n × d, row-major), eps being the
// range within which a feature is constant on a node.
func grow[T float32 | float64](ctx context.Context, f *IForest, x []T, n, d int, eps T) ([][]node, error) {
	psi := min(f.cfg.Samples, n)
	src := f.cfg.Src
	if s, ok := src.(*param.Seeded); ok {
		src = s.Source
	}
	if src == nil {
		src = nprand.NewSource(0)
	}
	// BaseBagging._fit: one seed per tree from the forest's generator.
	master := nprand.WordsOf(src)
	seeds := make([]uint32, f.cfg.Trees)
	for t := range seeds {
		seeds[t] = uint32(nprand.Bounded(master, maxSeed))
	}
	limit := int32(math.Ceil(math.Log2(float64(max(psi, 2)))))
	trees := make([][]node, len(seeds))
	err := parallel.ForBlocksProgress(ctx, len(trees), func() func(int) {
		g := &grower[T]{x: x, n: n, d: d, eps: eps, limit: limit, features: make([]int, d), constant: make([]int, d)}
		return func(t int) { trees[t] = g.tree(seeds[t], psi) }
	}, func(done, total int) { f.Report("trees", done, total) })
	return trees, err
}

// rowsOf returns the rows of X as T, row-major. In single precision these
// are the values scikit-learn's trees see (it converts X to float32).
func rowsOf[T float32 | float64](X mat.Matrix) []T {
	n, d := X.Dims()
	x := make([]T, n*d)
	switch m := X.(type) {
	case mat.RawMatrixer:
		raw := m.RawMatrix()
		for i := 0; i < n; i++ {
			for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+d] {
				x[i*d+j] = T(v)
			}
		}
	case *sparse.CSR:
		for i := 0; i < n; i++ {
			ind, val := csr.Row(m, i)
			for k, j := range ind {
				x[i*d+j] = T(val[k])
			}
		}
	default:
		for i := 0; i < n; i++ {
			for j := 0; j < d; j++ {
				x[i*d+j] = T(X.At(i, j))
			}
		}
	}
	return x
}

// grower grows trees as scikit-learn's IsolationForest does: its bagging
// draws the subsample, an ExtraTreeRegressor (max_features = 1, splitter
// "random") grown depth first, left child first, splits it. features and
// constant are the splitter's feature permutation and its record of
// features constant on the current path, carried from node to node as
// there; perm is scratch for the subsample.
type grower[T float32 | float64] struct {
	x                  []T
	eps                T
	n, d               int
	limit              int32
	state              uint32 // the splitter's rand_r state
	features, constant []int
	perm               []int
	nodes              []node
}

// tree grows the tree of the bagging seed seed on psi rows.
func (g *grower[T]) tree(seed uint32, psi int) []node {
	// _make_estimator → _set_random_states: the tree's random_state is
	// the first draw of RandomState(seed); _generate_bagging_indices
	// draws the rows from a fresh RandomState(seed); the splitter's state
	// is the first draw of RandomState(tree's random_state).
	treeSeed := nprand.New(seed).Interval(maxSeed)
	rows := g.subsample(nprand.New(seed), psi)
	g.state = nprand.New(treeSeed).Interval(randRMax - 1)
	for i := range g.features {
		g.features[i] = i
	}
	g.nodes = make([]node, 0, 2*psi)
	g.grow(rows, 0, 0)
	return g.nodes
}

// subsample draws psi of the n rows without replacement as
// sklearn.utils.random.sample_without_replacement (method "auto") does,
// returned in ascending order: the rows of weight one the tree sees.
func (g *grower[T]) subsample(r *nprand.RandomState, psi int) []int {
	n := g.n
	out := make([]int, 0, psi)
	switch ratio := float64(psi) / float64(n); {
	case ratio > 0.01 && ratio < 0.99: // permutation(n)[:psi]
		if len(g.perm) < n {
			g.perm = make([]int, n)
		}
		p := g.perm[:n]
		for i := range p {
			p[i] = i
		}
		r.Shuffle(p)
		out = append(out, p[:psi]...)
	case ratio < 0.2: // tracking selection: draw, redraw repeats
		seen := make(map[int]struct{}, psi)
		for len(out) < psi {
			j := int(nprand.Bounded(r, uint64(n-1)))
			if _, dup := seen[j]; !dup {
				seen[j] = struct{}{}
				out = append(out, j)
			}
		}
	default: // reservoir sampling
		for i := 0; i < psi; i++ {
			out = append(out, i)
		}
		for i := psi; i < n; i++ {
			if j := int(nprand.Bounded(r, uint64(i))); j < psi {
				out[j] = i
			}
		}
	}
	slices.Sort(out)
	return out
}

// randR is the splitter's our_rand_r: a xorshift step, reduced below 2³¹.
func (g *grower[T]) randR() uint32 {
	s := g.state
	if s == 0 {
		s = 1
	}
	s ^= s << 13
	s ^= s >> 17
	s ^= s << 5
	g.state = s
	return s % (randRMax + 1)
}

// grow adds the subtree of rows at depth, nConst features being known
// constant on them, and returns its node index. A node is a leaf at the
// height limit, below two rows, or when no feature varies on its rows
// (scikit-learn also stops where the random regression targets it fits
// have variance below machine epsilon: a chance of order 1e-8 per node,
// not replayed).
func (g *grower[T]) grow(rows []int, depth int32, nConst int) int32 {
	id := int32(len(g.nodes))
	g.nodes = append(g.nodes, node{Left: -1, Right: -1, Size: int32(len(rows)), Depth: depth})
	if depth >= g.limit || len(rows) < 2 {
		return id
	}
	// RandomSplitter.node_split with max_features = 1: draw features
	// without replacement (Fisher–Yates on features) until one varies,
	// skipping those known constant; split it at a uniform value between
	// its minimum and maximum.
	x, d, feat := g.x, g.d, g.features
	fi, nVisited, nFound, nDrawn := d, 0, 0, 0
	nKnown, nTotal := nConst, nConst
	split, k := -1, 0
	var thr float64
	for fi > nTotal && (nVisited < 1 || nVisited <= nFound+nDrawn) {
		nVisited++
		fj := nDrawn + int(uint64(g.randR())%uint64(fi-nFound-nDrawn))
		if fj < nKnown {
			feat[nDrawn], feat[fj] = feat[fj], feat[nDrawn]
			nDrawn++
			continue
		}
		fj += nFound
		j := feat[fj]
		lo := x[rows[0]*d+j]
		hi := lo
		for _, r := range rows[1:] {
			if v := x[r*d+j]; v < lo {
				lo = v
			} else if v > hi {
				hi = v
			}
		}
		if hi <= lo+g.eps {
			feat[fj], feat[nTotal] = feat[nTotal], feat[fj]
			nFound++
			nTotal++
			continue
		}
		fi--
		feat[fi], feat[fj] = feat[fj], feat[fi]
		t := (float64(hi)-float64(lo))*float64(g.randR())/randRMax + float64(lo)
		if t == float64(hi) {
			t = float64(lo)
		}
		// Partition: rows with x_j ≤ t first.
		k = 0
		for i, r := range rows {
			if float64(x[r*d+j]) <= t {
				rows[i], rows[k] = rows[k], rows[i]
				k++
			}
		}
		if k == 0 || k == len(rows) { // a side empty (min_samples_leaf): no split
			continue
		}
		split, thr = j, t
	}
	copy(feat[:nKnown], g.constant[:nKnown])
	copy(g.constant[nKnown:nKnown+nFound], feat[nKnown:nKnown+nFound])
	if split < 0 {
		return id
	}
	left := g.grow(rows[:k], depth+1, nTotal)
	right := g.grow(rows[k:], depth+1, nTotal)
	g.nodes[id].Feature, g.nodes[id].Value, g.nodes[id].Left, g.nodes[id].Right = int32(split), thr, left, right
	return id
}

// Score returns s(x) = 2^(−E[h(x)]/c(ψ)) for the rows of X.
func (f *IForest) Score(dst []float64, X mat.Matrix) ([]float64, error) {
	return f.ScoreWith(dst, X, func(dst []float64, X mat.Matrix) ([]float64, error) {
		r, _ := X.Dims()
		return f.score(detector.ScoreDst(dst, r), X), nil
	})
}

// score fills dst, splitting the rows over the cores.
func (f *IForest) score(dst []float64, X mat.Matrix) []float64 {
	r, d := X.Dims()
	cpsi := avgPath(f.psi)
	parallel.ForRanges(r, 256, func(lo, hi int) {
		row := make([]float64, d)
		for i := lo; i < hi; i++ {
			mat.Row(row, i, X)
			if f.single {
				for j, v := range row {
					row[j] = float64(float32(v))
				}
			}
			var h float64
			for _, t := range f.trees {
				h += pathLength(t, row)
			}
			dst[i] = math.Exp2(-h / (float64(len(f.trees)) * cpsi))
		}
	})
	return dst
}

// pathLength returns the depth of x's leaf plus c(leaf size); x holds
// values in the forest's precision.
func pathLength(t []node, x []float64) float64 {
	i := int32(0)
	for t[i].Left >= 0 {
		if x[t[i].Feature] <= t[i].Value {
			i = t[i].Left
		} else {
			i = t[i].Right
		}
	}
	return float64(t[i].Depth) + avgPath(int(t[i].Size))
}

// avgPath is c(m), the mean path length of an unsuccessful search in a
// binary search tree of m rows, with scikit-learn's harmonic number
// H(i) ≈ ln(i) + γ_Euler.
func avgPath(m int) float64 {
	switch {
	case m <= 1:
		return 0
	case m == 2:
		return 1
	}
	mf := float64(m)
	return 2*(math.Log(mf-1)+0.5772156649015329) - 2*(mf-1)/mf
}

// TreeCount returns the number of trees of the fitted forest.
func (f *IForest) TreeCount() int { return len(f.trees) }

type state struct {
	Psi, D int
	Single bool
	Trees  [][]node
}

var errState = errors.New("iforest: invalid model state")

// MarshalBinary encodes the fitted trees.
func (f *IForest) MarshalBinary() ([]byte, error) {
	if !f.Fitted() {
		return nil, detector.ErrNotFitted
	}
	return detector.EncodeState("iforest", state{Psi: f.psi, D: f.d, Single: f.single, Trees: f.trees})
}

// UnmarshalBinary decodes trees written by MarshalBinary, checking every
// node (feature in range, children after their parent, sizes positive).
func (f *IForest) UnmarshalBinary(b []byte) error {
	var s state
	if err := detector.DecodeState("iforest", b, &s); err != nil {
		return err
	}
	if s.Psi < 2 || s.D < 1 || len(s.Trees) == 0 {
		return errState
	}
	if err := f.CheckStateDim(s.D); err != nil {
		return err
	}
	for _, t := range s.Trees {
		if len(t) == 0 {
			return errState
		}
		for i, nd := range t {
			leaf := nd.Left < 0
			if nd.Size < 0 || nd.Depth < 0 || (leaf && nd.Right >= 0) ||
				(!leaf && (nd.Feature < 0 || int(nd.Feature) >= s.D || int(nd.Left) <= i || int(nd.Right) <= i ||
					int(nd.Left) >= len(t) || int(nd.Right) >= len(t) || math.IsNaN(nd.Value))) {
				return errState
			}
		}
	}
	f.psi, f.d, f.single, f.trees = s.Psi, s.D, s.Single, s.Trees
	return nil
}

// memory estimates the peak bytes: the copy of the training rows in the
// forest's precision, each worker's permutation scratch, the
// trees (at most 2ψ − 1 nodes each), and the scores.
func memory(f *IForest, op detector.Op, s detector.Size) float64 {
	n, d := float64(s.Rows), float64(s.Cols)
	workers := float64(runtime.GOMAXPROCS(0))
	if op == detector.ScoreOp {
		return 8*n + 8*d*workers
	}
	psi := float64(min(f.cfg.Samples, s.Rows))
	size := 8.0
	if f.cfg.Precision == Single {
		size = 4
	}
	trees := float64(f.cfg.Trees) * (2 * psi) * 32
	return size*n*d + trees + workers*8*n + 8*n + 8*n + detector.SaveFactor*trees // and saving the trees
}

func init() {
	detector.RegisterLegacy(detector.Info{
		Name:    "iforest",
		Summary: "Isolation Forest (Liu, Ting & Zhou 2008): 100 trees on 256-row subsamples; score 2^(−E[h(x)]/c(ψ)) (a reference detector)",
		Version: 2,
		Scale:   scale.None,
		MinRows: 2,
	}, New, memory)
}
