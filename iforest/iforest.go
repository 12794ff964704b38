package iforest

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector/method"
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
	// forest scikit-learn's IsolationForest(random_state=s) grows. A
	// source made by the seed parameter starts afresh at every fit, so
	// every fit with seed s grows that forest; a source given by hand
	// is consumed, and a second fit continues its stream.
	Src rand.Source
	// Precision is the precision the trees compare values in: "double"
	// (the default; float64, a feature is constant on a node when its
	// minimum equals its maximum) or "single" (scikit-learn's trees:
	// values rounded to float32, a feature constant when its range is
	// within 1e-7). Single precision with the seed s grows exactly
	// scikit-learn's forest; it also rounds raw units (a timestamp of
	// 1.7e9 s to 128 s), which double precision does not.
	Precision string
	// Common holds the contamination rate, the scale stage (default none),
	// the sample parameters and the progress callback.
	method.Common
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

// ThresholdRows is the most training rows scored to set the threshold: a
// fit of more rows scores that many, evenly spaced, so that neither the
// threshold's time nor its memory grows with n (the quantile of 10⁵
// scores lies within about 0.2% of the training rows' in rank). A fit of
// at most ThresholdRows rows scores every row.
const ThresholdRows = 100000

// IForest is a fitted (or unfitted) Isolation Forest.
type IForest struct {
	method.Base[*model]
	cfg Config
}

// New returns an unfitted Isolation Forest.
func New(cfg Config) (*IForest, error) {
	f := &IForest{cfg: cfg}
	return method.Init(f, &f.Base, "iforest", &f.cfg, method.Hooks[*model]{Fit: f.fit, Decode: decode})
}

// Config returns the resolved configuration.
func (f *IForest) Config() Config { return f.cfg }

// Fit grows the trees on the rows of X and sets the threshold from the
// scores of the training rows.
func (f *IForest) Fit(ctx context.Context, X mat.Matrix) error { return f.Base.Fit(ctx, X) }

// Score returns s(x) = 2^(−E[h(x)]/c(ψ)) for the rows of X.
func (f *IForest) Score(dst []float64, X mat.Matrix) ([]float64, error) { return f.Base.Score(dst, X) }

// TreeCount returns the number of trees of the fitted forest (0 before
// Fit).
func (f *IForest) TreeCount() int {
	if m, ok := f.Model(); ok {
		return len(m.trees)
	}
	return 0
}

// node is one node of a tree: an inner node splits on Feature at Value
// (rows with x[Feature] ≤ Value, compared in the forest's precision, go
// left); a leaf (Left < 0) holds Size training rows at depth Depth.
// Children come after their parent (the nodes are in depth-first order).
type node struct {
	Feature     int32
	Left, Right int32
	Size        int32
	Depth       int32
	Value       float64
}

// model is a fitted forest.
type model struct {
	trees  [][]node
	walks  []walk    // trees[k] laid out for scoring dense rows
	psi    int       // subsample size of the fit
	d      int       // columns
	single bool      // compare in single precision
	c      []float64 // c(m) for m = 0, …, min(ψ, maxCached)
}

// walk is a tree laid out for scoring dense rows in lockstep (walkRows):
// node i's split feature and value and its children, kids[0] (x ≤
// value) and kids[1], in one 24-byte entry. A leaf splits on feature 0
// at +Inf with itself as both children, so a row that reaches it stays
// there, and every row takes exactly depth steps (the deepest leaf's).
type walk struct {
	nodes []walkNode
	depth int
}

type walkNode struct {
	val  float64
	feat int32
	kids [2]int32
}

// newWalk lays out tree t for walkRows.
func newWalk(t []node) walk {
	w := walk{nodes: make([]walkNode, len(t))}
	for i, nd := range t {
		if nd.Left < 0 {
			w.nodes[i] = walkNode{val: math.Inf(1), kids: [2]int32{int32(i), int32(i)}}
			w.depth = max(w.depth, int(nd.Depth))
			continue
		}
		w.nodes[i] = walkNode{val: nd.Value, feat: nd.Feature, kids: [2]int32{nd.Left, nd.Right}}
	}
	return w
}

// walkRows sets leaf[i] to the leaf of tree w that row rows[i] reaches
// (rows in the forest's precision): a value ≤ the split's goes left,
// any other (NaN too) right, as pathLengthSparse goes. The rows go down the
// tree together, a level at a time, and each step picks its child
// without a branch: the rows' walks are independent, so the processor
// overlaps them, where one row's walk at a time waited at every level
// for its node and mispredicted about half of its branches
// (BenchmarkScore, benchstat of six runs each: 100,000 rows × 100 trees
// 197.6 → 112.1 ms, 10,000 rows 19.8 → 10.7 ms).
func (w *walk) walkRows(rows [][]float64, leaf []int32) {
	clear(leaf)
	nodes := w.nodes
	for range w.depth {
		for i, x := range rows {
			nd := &nodes[leaf[i]]
			var right int
			if !(x[nd.feat] <= nd.val) {
				right = 1
			}
			leaf[i] = nd.kids[right&1]
		}
	}
}

// newModel returns the model of trees grown on psi rows of d columns.
func newModel(trees [][]node, psi, d int, single bool) *model {
	c := make([]float64, min(psi, maxCached)+1)
	for m := range c {
		c[m] = avgPath(m)
	}
	walks := make([]walk, len(trees))
	for k, t := range trees {
		walks[k] = newWalk(t)
	}
	return &model{trees: trees, walks: walks, psi: psi, d: d, single: single, c: c}
}

// maxCached is the largest leaf size whose c(m) a model keeps: a leaf of
// more rows (ψ above it) has c(m) computed when it is reached.
const maxCached = 4096

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

// fit draws every tree's subsample, reads the rows they need (their
// union, at most Trees × ψ rows, never the rest), grows the trees and
// scores at most ThresholdRows training rows for the threshold.
func (f *IForest) fit(ctx context.Context, ft *method.Fitting) (*model, []float64, error) {
	n, d := ft.Dims()
	psi := min(f.cfg.Samples, n)
	dr, err := f.draw(ctx, ft, n, psi)
	if err != nil {
		return nil, nil, err
	}
	union, err := unionOf(ctx, dr.rows)
	if err != nil {
		return nil, nil, err
	}
	// Every row drawn (ψ near n, or many trees): the rows as they are
	// (the fit's own matrix when it is in memory and unscaled), which
	// the threshold then scores without reading them again.
	var X, all mat.Matrix
	if len(union) == n {
		X, err = ft.Matrix(ctx)
		all = X
	} else {
		X, err = ft.Rows(ctx, union)
	}
	if err != nil {
		return nil, nil, err
	}
	single := f.cfg.Precision == Single
	var trees [][]node
	if single {
		trees, err = grow(ctx, ft, newData[float32](X), dr, union, psi, featureThreshold)
	} else {
		trees, err = grow(ctx, ft, newData[float64](X), dr, union, psi, 0)
	}
	if err != nil {
		return nil, nil, err
	}
	m := newModel(trees, psi, d, single)
	if psi == 2 {
		// The all-equal warning would blame the scale of the data.
		ft.Caution("iforest: each tree draws 2 rows (samples=2, or 2 training rows), so it is one split deep: every row's path, however far the row lies, is one edge long and every score is 2^(−1/c(2)) = 0.5; the forest cannot rank rows (raise samples, or fit on more rows)")
	}
	train, err := m.trainScores(ctx, ft, all)
	if err != nil {
		return nil, nil, err
	}
	return m, train, nil
}

// draws are the random choices of every tree made before any row is
// read: its splitter's state and its subsample (ascending row indices).
type draws struct {
	state []uint32
	rows  [][]int
}

// draw makes every tree's draws as scikit-learn's IsolationForest does:
// BaseBagging._fit draws one seed per tree from the forest's generator;
// _make_estimator → _set_random_states makes the tree's random_state the
// first draw of RandomState(seed), and the splitter's state is the first
// draw of RandomState(tree's random_state); _generate_bagging_indices
// draws the rows from a fresh RandomState(seed). The seeds are drawn in
// order, the rest tree by tree on every core.
func (f *IForest) draw(ctx context.Context, ft *method.Fitting, n, psi int) (*draws, error) {
	src := f.cfg.Src
	switch s := src.(type) {
	case nil:
		src = nprand.NewSource(0)
	case *param.Seeded:
		src = nprand.NewSource(s.Seed) // each fit with seed s grows the same forest
	}
	master := nprand.WordsOf(src)
	seeds := make([]uint32, f.cfg.Trees)
	for t := range seeds {
		if t%(1<<16) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		seeds[t] = uint32(nprand.Bounded(master, maxSeed))
	}
	dr := &draws{state: make([]uint32, len(seeds)), rows: make([][]int, len(seeds))}
	err := parallel.ForBlocksProgress(ctx, len(seeds), func() func(int) {
		var perm []int
		return func(t int) {
			treeSeed := nprand.New(seeds[t]).Interval(maxSeed)
			dr.state[t] = nprand.New(treeSeed).Interval(randRMax - 1)
			dr.rows[t] = subsample(nprand.New(seeds[t]), n, psi, &perm)
		}
	}, func(done, total int) { ft.Report("subsample", done, total) })
	if err != nil {
		return nil, err
	}
	return dr, nil
}

// subsample draws psi of the n rows without replacement as
// sklearn.utils.random.sample_without_replacement (method "auto") does,
// returned in ascending order: the rows of weight one the tree sees.
// perm is scratch for the permutation method (n < 100ψ).
func subsample(r *nprand.RandomState, n, psi int, perm *[]int) []int {
	out := make([]int, 0, psi)
	switch ratio := float64(psi) / float64(n); {
	case ratio > 0.01 && ratio < 0.99: // permutation(n)[:psi]
		if len(*perm) < n {
			*perm = make([]int, n)
		}
		p := (*perm)[:n]
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

// unionOf returns the distinct values of the ascending lists, ascending,
// in a new slice: the lists merged pairwise, round by round (O(m log k)
// for k lists of m values in all), checking ctx between merges.
func unionOf(ctx context.Context, lists [][]int) ([]int, error) {
	cur := slices.Clone(lists)
	for len(cur) > 1 {
		next := cur[:0:0]
		for i := 0; i+1 < len(cur); i += 2 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			next = append(next, mergeSorted(cur[i], cur[i+1]))
		}
		if len(cur)%2 == 1 {
			next = append(next, cur[len(cur)-1])
		}
		cur = next
	}
	if len(lists) == 1 {
		return slices.Clone(lists[0]), nil
	}
	return cur[0], nil
}

// mergeSorted returns the distinct values of the ascending a and b.
func mergeSorted(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	for len(a) > 0 || len(b) > 0 {
		var v int
		switch {
		case len(b) == 0 || (len(a) > 0 && a[0] < b[0]):
			v, a = a[0], a[1:]
		case len(a) == 0 || b[0] < a[0]:
			v, b = b[0], b[1:]
		default:
			v, a, b = a[0], a[1:], b[1:]
		}
		if len(out) == 0 || out[len(out)-1] != v {
			out = append(out, v)
		}
	}
	return out
}

// data is the rows the trees are grown on, in the forest's precision T:
// dense, row-major (x), or sparse rows read through their non-zeros.
type data[T float32 | float64] struct {
	x []T
	d int
	// The CSR arrays of sparse rows (column indices ascending in a row).
	indptr, ind []int
	val         []float64
}

// newData returns the rows of X as the trees read them: a dense X's
// values in precision T (float64 rows with contiguous storage are used
// as they are), a sparse X's CSR arrays (values rounded to T as read).
// In single precision these are the values scikit-learn's trees see (it
// converts X to float32).
func newData[T float32 | float64](X mat.Matrix) *data[T] {
	n, d := X.Dims()
	if sp, ok := csr.Canonical(X); ok {
		raw := sp.RawMatrix()
		return &data[T]{d: d, indptr: raw.Indptr, ind: raw.Ind, val: raw.Data}
	}
	if m, ok := X.(mat.RawMatrixer); ok {
		raw := m.RawMatrix()
		if x, ok := any(raw.Data).([]T); ok && raw.Stride == d {
			return &data[T]{x: x[:n*d], d: d}
		}
	}
	x := make([]T, n*d)
	row := make([]float64, d)
	for i := range n {
		for j, v := range mat.Row(row, i, X) {
			x[i*d+j] = T(v)
		}
	}
	return &data[T]{x: x, d: d}
}

// column writes the values of feature j on rows into dst (len(rows)).
func (a *data[T]) column(dst []T, rows []int, j int) {
	if a.x != nil {
		for i, r := range rows {
			dst[i] = a.x[r*a.d+j]
		}
		return
	}
	for i, r := range rows {
		lo, hi := a.indptr[r], a.indptr[r+1]
		if k, ok := slices.BinarySearch(a.ind[lo:hi], j); ok {
			dst[i] = T(a.val[lo+k])
		} else {
			dst[i] = 0
		}
	}
}

// grow grows the trees on every core from their draws; the rows of x are
// those of union (the draws' rows are indices of the training rows, found
// in union), eps the range within which a feature is constant on a node.
func grow[T float32 | float64](ctx context.Context, ft *method.Fitting, x *data[T], dr *draws, union []int, psi int, eps T) ([][]node, error) {
	limit := int32(math.Ceil(math.Log2(float64(max(psi, 2)))))
	trees := make([][]node, len(dr.rows))
	err := parallel.ForBlocksProgress(ctx, len(trees), func() func(int) {
		g := &grower[T]{x: x, eps: eps, limit: limit, features: make([]int, x.d), constant: make([]int, x.d), vals: make([]T, psi), nodes: make([]node, 0, 2*psi)}
		return func(t int) {
			rows := dr.rows[t]
			for k, r := range rows {
				rows[k], _ = slices.BinarySearch(union, r)
			}
			trees[t] = g.tree(dr.state[t], rows)
		}
	}, func(done, total int) { ft.Report("trees", done, total) })
	return trees, err
}

// grower grows trees as scikit-learn's IsolationForest does: an
// ExtraTreeRegressor (max_features = 1, splitter "random") grown depth
// first, left child first, on the tree's subsample. features and
// constant are the splitter's feature permutation and its record of
// features constant on the current path, carried from node to node as
// there; vals is scratch for a feature's values on a node's rows, and
// nodes for the tree being grown.
type grower[T float32 | float64] struct {
	x                  *data[T]
	eps                T
	limit              int32
	state              uint32 // the splitter's rand_r state
	features, constant []int
	vals               []T
	nodes              []node
}

// tree grows the tree whose splitter starts at state on rows (indices of
// the rows of g.x, ascending; reordered in place) and returns its nodes
// in a slice of their number: at most 2ψ − 1 (for ψ = 256 on 20,000
// rows, 123 on average for Gaussian columns, 204 for uniform ones and 388
// for 20 binary ones, whose splits halve the rows).
func (g *grower[T]) tree(state uint32, rows []int) []node {
	g.state = state
	for i := range g.features {
		g.features[i] = i
	}
	g.nodes = g.nodes[:0]
	g.grow(rows, 0, 0)
	return slices.Clone(g.nodes)
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
	feat := g.features
	vals := g.vals[:len(rows)]
	fi, nVisited, nFound, nDrawn := len(feat), 0, 0, 0
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
		g.x.column(vals, rows, j)
		lo, hi := vals[0], vals[0]
		for _, v := range vals[1:] {
			if v < lo {
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
		// Partition: rows with x_j ≤ t first. The swaps only move rows
		// already visited, so vals[i] is row i's value when it is read.
		k = 0
		for i, v := range vals {
			if float64(v) <= t {
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

// trainScores scores the training rows the threshold is set from: every
// row (all, when the fit holds them, else a chunk at a time), or
// ThresholdRows of them evenly spaced when there are more.
func (m *model) trainScores(ctx context.Context, ft *method.Fitting, all mat.Matrix) ([]float64, error) {
	n, d := ft.Dims()
	if n > ThresholdRows {
		return ft.ScoreEvenly(ctx, ThresholdRows, func(dst []float64, X mat.Matrix) error {
			return m.score(ctx, dst, X, func(done int) { ft.Report("score", done, ThresholdRows) })
		})
	}
	train := make([]float64, n)
	if all != nil {
		return train, m.score(ctx, train, all, func(done int) { ft.Report("score", done, n) })
	}
	err := ft.Scan(ctx, method.ChunkRows(d), func(lo int, X mat.Matrix) error {
		r, _ := X.Dims()
		return m.score(ctx, train[lo:lo+r], X, func(done int) { ft.Report("score", lo+done, n) })
	})
	return train, err
}

// Score writes the scores of the rows of X into dst, blocks of rows on
// every core, and returns ctx.Err() within about a millisecond of work
// after ctx ends.
func (m *model) Score(ctx context.Context, dst []float64, X mat.Matrix) error {
	return m.score(ctx, dst, X, nil)
}

// Blocks of Score: up to scoreBlock rows are walked down one tree after
// another (each tree stays in cache for the block's rows), and ctx is
// checked after about checkWalks tree walks (a walk visits at most
// ⌈log₂ ψ⌉ + 1 nodes, 50–100 ns), so that a cancelled Score returns
// within about a millisecond of work whatever the number of trees. A
// row's path lengths are summed over the trees in order, so a score does
// not depend on the blocks (nor on anything but its row).
const (
	scoreBlock = 256
	checkWalks = 4096
	// copiedValues bounds the values of the rows a worker copies (in
	// single precision, or from a matrix without raw rows).
	copiedValues = 1 << 20
)

// score is Score that reports the rows done after each block when
// progress is not nil (on the calling goroutine, about every 100 ms and
// at the end).
func (m *model) score(ctx context.Context, dst []float64, X mat.Matrix, progress func(done int)) error {
	r, d := X.Dims()
	if r == 0 {
		return ctx.Err()
	}
	sp, _ := csr.Canonical(X)
	rv, _ := X.(mat.RawRowViewer)
	copied := sp == nil && (rv == nil || m.single) // rows copied into the forest's precision
	block := max(1, min(scoreBlock, (r+3)/4))
	if copied {
		block = max(1, min(block, copiedValues/max(d, 1)))
	}
	nb := (r + block - 1) / block
	every := max(1, checkWalks/block) // trees between checks of ctx
	norm := float64(len(m.trees)) * avgPath(m.psi)
	var report func(done, total int)
	if progress != nil {
		report = func(done, _ int) { progress(min(r, done*block)) }
	}
	err := parallel.ForBlocksProgress(ctx, nb, func() func(int) {
		h := make([]float64, block)
		leaf := make([]int32, block)
		rows := make([][]float64, block)
		var inds [][]int
		var buf []float64
		if sp != nil {
			inds = make([][]int, block)
		} else if copied {
			buf = make([]float64, block*d)
		}
		return func(b int) {
			lo, hi := b*block, min(r, (b+1)*block)
			h, rows := h[:hi-lo], rows[:hi-lo]
			clear(h)
			for i := lo; i < hi; i++ {
				switch {
				case sp != nil:
					inds[i-lo], rows[i-lo] = csr.Row(sp, i)
				case copied:
					rows[i-lo] = m.denseRow(buf[(i-lo)*d:(i-lo+1)*d], rv, X, i)
				default:
					rows[i-lo] = rv.RawRowView(i)
				}
			}
			for k, t := range m.trees {
				if k%every == 0 && ctx.Err() != nil {
					return // ForBlocksProgress hands out no more blocks; score returns ctx.Err()
				}
				if sp != nil {
					for i, x := range rows {
						h[i] += m.pathLengthSparse(t, inds[i], x)
					}
					continue
				}
				leaf := leaf[:len(rows)]
				m.walks[k].walkRows(rows, leaf)
				for i, l := range leaf {
					h[i] += m.leafPath(&t[l])
				}
			}
			for i, v := range h {
				dst[lo+i] = math.Exp2(-v / norm)
			}
		}
	}, report)
	if err != nil {
		return err
	}
	return ctx.Err()
}

// denseRow returns row i of X in the forest's precision, copied into
// row.
func (m *model) denseRow(row []float64, rv mat.RawRowViewer, X mat.Matrix, i int) []float64 {
	if rv != nil {
		copy(row, rv.RawRowView(i))
	} else {
		mat.Row(row, i, X)
	}
	if m.single {
		for j, v := range row {
			row[j] = float64(float32(v))
		}
	}
	return row
}

// pathLengthSparse returns the depth of a sparse row's leaf in tree t
// plus c(leaf size), the row given by its column indices, ascending, and
// values: each split's feature is looked up among the row's non-zeros
// (rounded to float32 in single precision), and a value ≤ the split's
// goes left.
func (m *model) pathLengthSparse(t []node, ind []int, val []float64) float64 {
	i := int32(0)
	for t[i].Left >= 0 {
		var v float64
		if k, ok := slices.BinarySearch(ind, int(t[i].Feature)); ok {
			v = val[k]
			if m.single {
				v = float64(float32(v))
			}
		}
		if v <= t[i].Value {
			i = t[i].Left
		} else {
			i = t[i].Right
		}
	}
	return m.leafPath(&t[i])
}

// leafPath is the path length of a row that reaches leaf nd: its depth
// plus c(its rows).
func (m *model) leafPath(nd *node) float64 {
	if s := int(nd.Size); s < len(m.c) {
		return float64(nd.Depth) + m.c[s]
	}
	return float64(nd.Depth) + avgPath(int(nd.Size))
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

func init() {
	method.Register(method.Info{
		Name:    "iforest",
		Summary: "Isolation Forest (Liu, Ting & Zhou 2008): 100 trees on 256-row subsamples; score 2^(−E[h(x)]/c(ψ)) (a reference detector)",
		Version: 2,
		Scale:   scale.None,
		MinRows: 2,
	}, New, memory)
}
