package kde

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector/method"
)

// stateVersion is the version of the saved state (detector.Method.Version).
const stateVersion = 1

func init() {
	method.Register(method.Info{
		Name:    "kde",
		Summary: "kernel density estimate; score −log p̂(x) (six kernels, scale_scott/scale/scott/silverman/cv bandwidth, exact or kd-tree)",
		Version: stateVersion,
	}, New, memory)
}

// state is the saved model: its field names and types are the file
// format (models saved by earlier builds load).
type state struct {
	Kernel int
	H      float64
	Mean   []float64
	N, D   int
	X      []float64 // centred training rows, n × d, in the training rows' order
}

var errState = errors.New("kde: invalid model state")

// MarshalBinary encodes the fitted model (the centred training rows, their
// mean and the bandwidth); the tree is rebuilt on load. The exact
// scorer's rows are encoded in place; the tree's are put back in the
// training rows' order (a copy).
func (m *model) MarshalBinary() ([]byte, error) {
	n, d := m.x.Dims()
	x := m.x.RawMatrix().Data[:n*d]
	if m.tree != nil {
		x = m.tree.rowMajor()
	}
	return method.EncodeState("kde", state{Kernel: int(m.kern), H: m.h, Mean: m.mean, N: n, D: d, X: x})
}

// decode rebuilds a model written by MarshalBinary for dim columns: the
// kernel of the configuration, a finite bandwidth > 0, finite rows and
// mean of dim columns. Sizes are compared by division, so no product of
// sizes read from the file can wrap.
func (k *KDE) decode(b []byte, dim int) (*model, error) {
	var s state
	if err := method.DecodeState("kde", b, &s); err != nil {
		return nil, err
	}
	if s.Kernel != int(k.cfg.Kernel) || s.N < 1 || s.D < 1 || len(s.Mean) != s.D ||
		len(s.X)%s.D != 0 || len(s.X)/s.D != s.N || !(s.H > 0) || math.IsInf(s.H, 0) || !method.Finite(s.X, s.Mean) {
		return nil, errState
	}
	if s.D != dim {
		return nil, fmt.Errorf("kde: the state is for %d columns, the model's shared state for %d", s.D, dim)
	}
	m := &model{kern: k.cfg.Kernel, h: s.H, mean: s.Mean, x: mat.NewDense(s.N, s.D, s.X), rtol: k.cfg.RTol, atol: k.cfg.ATol}
	m.logNorm = m.kern.logNorm(s.H, s.D) - math.Log(float64(s.N))
	ctx := context.Background() // no cancel: no error
	if k.useTree() {
		m.tree, _ = buildTree(ctx, m.x, k.leafSize(), func(string, int, int) {})
	} else {
		m.sqn, _ = sqNorms(ctx, m.x)
	}
	return m, nil
}

// memory estimates the peak bytes of a fit and of saving its model (the
// command line saves every model it fits), or of a score.
//
// A fit holds the scaled training rows, centred in place (n × d, from
// Fitting.Dense: a sparse matrix is densified into it), and their squared
// norms (n) or, for the tree scorer, the tree (its row order, n, and a
// bounding box of 2d values per node). It then scores up to ThresholdRows
// training rows: with the exact scorer each worker holds a block of
// query rows, a tile of products and the block's distances to every
// training row (scoreBlock); cross-validation holds as much again, and
// the tree's build one row order more. Saving holds the encoded state, as
// large as the rows (the tree's rows are first copied back into their
// order: twice). The three are added: the scoring's blocks and the
// save's buffer follow one another faster than the collector frees the
// blocks (a 50,000 × 50 fit and save held the sum, 57 MB, at its peak).
// Before the rows are held, the scale stage is fitted on sparse input a
// densified chunk at a time, one chunk a pass, which the collector had
// not always freed when the rows came (a 400 × 50,000 CSR fit held 363 MB
// at its peak: the rows, 160 MB, and a 102 MB chunk more than once): it
// is counted once.
//
// A score scales its rows a chunk at a time (a sparse chunk densified
// first) and holds the workers' blocks against the model's n rows.
func memory(k *KDE, op method.Op, s method.Size) float64 {
	rows, d := float64(s.Rows), float64(s.Cols)
	tree := k.useTree()
	blocks := func(rows, n float64) float64 {
		if tree {
			return float64(runtime.GOMAXPROCS(0)) * 8 * (d + 2*float64(k.leafSize()))
		}
		return scoreBlock(rows, n, d)
	}
	if op == method.ScoreOp {
		n := rows // a model not yet fitted: as many training rows as rows
		if m, ok := k.Model(); ok {
			r, _ := m.x.Dims()
			n = float64(r)
		}
		est := 8*rows + blocks(rows, n)
		if s.Sparse {
			est += 2 * 8 * math.Min(rows, float64(method.ChunkRows(s.Cols))) * d // densified, then scaled
		}
		return est
	}
	n := rows
	cv := k.cfg.Bandwidth == 0 && k.cfg.Rule == CV
	model := 8 * n * d // the rows
	save := 8 * n * d
	if !tree || cv {
		model += 8 * n // their squared norms
	}
	if tree {
		nodes := float64(treeNodes(s.Rows, k.leafSize()))
		model += 8*n + 16*nodes*d + 48*nodes // pos, the boxes and the nodes
		save *= 2
	}
	scored := n
	if k.cfg.ThresholdRows > 0 {
		scored = math.Min(n, float64(k.cfg.ThresholdRows))
	}
	work := 8*scored + blocks(scored, n)
	if cv {
		// each worker's block and held-out distances (crossValidate)
		held := math.Min(n, float64(k.cvRows()))
		work += scoreBlock(held, n, d) + float64(runtime.GOMAXPROCS(0))*16*n
	}
	if tree {
		work += 8 * n // the build's row order, beside pos
	}
	if s.Sparse {
		work += 8 * math.Min(n, float64(method.ChunkRows(s.Cols))) * d // the stage's densified chunk
	}
	return model + work + save
}

// scoreBlock is the bytes the exact scorer's workers hold scoring rows
// query rows against n training rows of d columns: each a crossBlock of
// br query rows and, for the kernels other than the Gaussian, a row of n
// log-kernel values.
func scoreBlock(rows, n, d float64) float64 {
	clamp := func(v float64) int { return int(math.Max(1, math.Min(v, math.MaxInt32))) }
	br := float64(exactBlockRows(clamp(n), clamp(d), clamp(rows)))
	workers := math.Min(float64(runtime.GOMAXPROCS(0)), math.Ceil(rows/br))
	tile := float64(crossTile(int(br), clamp(n), clamp(d)))
	t := tile * d // the tile transposed
	if d > br {
		t = br*d + tile*br // Qᵀ and the tile's products
	}
	return workers * 8 * (br*d + t + br*n + n + 2*br)
}
