package iforest

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
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
	// Src drives the subsamples and the splits; nil means PCG(0, 0).
	Src rand.Source
	// Common holds the contamination rate, the scale stage (default none)
	// and the progress callback (stage "trees").
	detector.Common
}

// Bind declares the parameters of Isolation Forest.
func (c *Config) Bind(s *param.Set) {
	s.Int(&c.Trees, "trees", DefaultTrees, param.AtLeast(1), "number of isolation trees")
	s.Int(&c.Samples, "samples", DefaultSamples, param.AtLeast(2), "rows drawn for each tree (capped at the training rows)")
	s.Seed(&c.Src, "seed", 0, func(seed uint64) rand.Source { return rand.NewPCG(seed, seed) }, "seed of the subsamples and the splits")
}

// node is one node of a tree: an inner node splits on Feature at Value
// (rows with x[Feature] < Value go left); a leaf (Left < 0) holds Size
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
	cfg   Config
	trees [][]node
	psi   int // subsample size of the fit
	d     int
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

func (f *IForest) fit(ctx context.Context, X mat.Matrix) ([]float64, error) {
	n, d := X.Dims()
	x := mat.DenseCopyOf(X)
	psi := min(f.cfg.Samples, n)
	rng := rand.New(f.cfg.Src)
	limit := int32(math.Ceil(math.Log2(float64(max(psi, 2)))))
	trees := make([][]node, f.cfg.Trees)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	g := grower{x: x, rng: rng, limit: limit, lo: make([]float64, d), hi: make([]float64, d), cand: make([]int, 0, d)}
	for t := range trees {
		if t%16 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			f.Report("trees", t, len(trees))
		}
		// A subsample without replacement: a partial Fisher–Yates shuffle.
		for i := 0; i < psi; i++ {
			j := i + rng.IntN(n-i)
			idx[i], idx[j] = idx[j], idx[i]
		}
		rows := append([]int(nil), idx[:psi]...)
		g.nodes = nil
		g.grow(rows, 0)
		trees[t] = g.nodes
	}
	f.Report("trees", len(trees), len(trees))
	f.trees, f.psi, f.d = trees, psi, d
	return f.score(make([]float64, n), x), nil
}

// grower grows one tree; lo, hi and cand are scratch space.
type grower struct {
	x      *mat.Dense
	rng    *rand.Rand
	limit  int32
	nodes  []node
	lo, hi []float64
	cand   []int
}

// grow adds the subtree of rows at depth and returns its node index.
func (g *grower) grow(rows []int, depth int32) int32 {
	id := int32(len(g.nodes))
	g.nodes = append(g.nodes, node{Left: -1, Right: -1, Size: int32(len(rows)), Depth: depth})
	if len(rows) <= 1 || depth >= g.limit {
		return id
	}
	// The features that vary on these rows, with their ranges.
	_, d := g.x.Dims()
	for j := 0; j < d; j++ {
		g.lo[j], g.hi[j] = math.Inf(1), math.Inf(-1)
	}
	for _, r := range rows {
		for j, v := range g.x.RawRowView(r) {
			g.lo[j] = math.Min(g.lo[j], v)
			g.hi[j] = math.Max(g.hi[j], v)
		}
	}
	g.cand = g.cand[:0]
	for j := 0; j < d; j++ {
		if g.hi[j] > g.lo[j] {
			g.cand = append(g.cand, j)
		}
	}
	if len(g.cand) == 0 { // every row equal: nothing left to isolate
		return id
	}
	j := g.cand[g.rng.IntN(len(g.cand))]
	v := g.lo[j] + g.rng.Float64()*(g.hi[j]-g.lo[j])
	if v <= g.lo[j] { // keep both sides non-empty (v = lo when the draw is 0)
		v = math.Nextafter(g.lo[j], math.Inf(1))
	}
	// Partition in place: rows with x_j < v first.
	k := 0
	for i, r := range rows {
		if g.x.At(r, j) < v {
			rows[i], rows[k] = rows[k], rows[i]
			k++
		}
	}
	left := g.grow(rows[:k], depth+1)
	right := g.grow(rows[k:], depth+1)
	g.nodes[id].Feature, g.nodes[id].Value, g.nodes[id].Left, g.nodes[id].Right = int32(j), v, left, right
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
			var h float64
			for _, t := range f.trees {
				h += pathLength(t, row)
			}
			dst[i] = math.Exp2(-h / float64(len(f.trees)) / cpsi)
		}
	})
	return dst
}

// pathLength returns the depth of x's leaf plus c(leaf size).
func pathLength(t []node, x []float64) float64 {
	i := int32(0)
	for t[i].Left >= 0 {
		if x[t[i].Feature] < t[i].Value {
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
	Trees  [][]node
}

var errState = errors.New("iforest: invalid model state")

// MarshalBinary encodes the fitted trees.
func (f *IForest) MarshalBinary() ([]byte, error) {
	if !f.Fitted() {
		return nil, detector.ErrNotFitted
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(state{Psi: f.psi, D: f.d, Trees: f.trees}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// UnmarshalBinary decodes trees written by MarshalBinary, checking every
// node (feature in range, children after their parent, sizes positive).
func (f *IForest) UnmarshalBinary(b []byte) error {
	var s state
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&s); err != nil {
		return fmt.Errorf("iforest: decoding state: %w", err)
	}
	if s.Psi < 2 || s.D < 1 || len(s.Trees) == 0 {
		return errState
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
	f.psi, f.d, f.trees = s.Psi, s.D, s.Trees
	return nil
}

// memory estimates the peak bytes: the copy of the training rows, the
// trees (at most 2ψ − 1 nodes each), and the scores.
func memory(f *IForest, op detector.Op, s detector.Size) int64 {
	n, d := int64(s.Rows), int64(s.Cols)
	if op == detector.ScoreOp {
		return 8*n + 8*d*int64(runtime.GOMAXPROCS(0))
	}
	psi := min(int64(f.cfg.Samples), n)
	return 8*n*d + int64(f.cfg.Trees)*(2*psi)*32 + 8*n + 8*n
}

func init() {
	detector.Register(detector.Info{
		Name:    "iforest",
		Summary: "Isolation Forest (Liu, Ting & Zhou 2008): 100 trees on 256-row subsamples; score 2^(−E[h(x)]/c(ψ)) (a reference detector)",
		Version: 1,
		Scale:   scale.None,
		MinRows: 2,
	}, New, memory)
}
