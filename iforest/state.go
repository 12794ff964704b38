package iforest

import (
	"errors"
	"fmt"
	"math"
	"runtime"

	"github.com/kernelad/anomaly/detector/method"
)

// state is the saved form of a model: its field names and types are the
// file format (unchanged since version 2, so earlier models load).
type state struct {
	Psi, D int
	Single bool
	Trees  [][]node
}

var errState = errors.New("iforest: invalid model state")

// MarshalBinary encodes the fitted trees.
func (m *model) MarshalBinary() ([]byte, error) {
	return method.EncodeState("iforest", state{Psi: m.psi, D: m.d, Single: m.single, Trees: m.trees})
}

// decode decodes trees written by MarshalBinary for dim columns, checking
// that every tree is one a fit grows (checkTree), so that a crafted model
// can neither send a walk out of its tree nor loop in it.
func decode(b []byte, dim int) (*model, error) {
	var s state
	if err := method.DecodeState("iforest", b, &s); err != nil {
		return nil, err
	}
	if s.Psi < 2 || s.Psi > math.MaxInt32 || s.D < 1 || len(s.Trees) == 0 {
		return nil, errState
	}
	if s.D != dim {
		return nil, fmt.Errorf("iforest: the state is for %d columns, the model's shared state for %d", s.D, dim)
	}
	depth := make([]int32, 0)
	for _, t := range s.Trees {
		if len(t) > 2*s.Psi {
			return nil, errState
		}
		depth = slices32(depth, len(t))
		if !checkTree(t, int32(s.Psi), int32(s.D), depth) {
			return nil, errState
		}
	}
	return newModel(s.Trees, s.Psi, s.D, s.Single), nil
}

// slices32 returns buf resized to n values, every one −1.
func slices32(buf []int32, n int) []int32 {
	if cap(buf) < n {
		buf = make([]int32, n)
	}
	buf = buf[:n]
	for i := range buf {
		buf[i] = -1
	}
	return buf
}

// checkTree reports whether t is a tree as a fit grows it on psi rows of
// d columns: nodes in depth-first order, so every child comes after its
// parent (no path can loop) and every node but the root has exactly one
// parent; the root at depth 0 holds psi rows, each child is one level
// deeper than its parent, an inner node's rows are its children's
// (summed in int64, so sizes cannot wrap), a leaf holds at least one row;
// an inner node splits on a feature in [0, d) at a finite value. depth
// is scratch of len(t), every value −1.
func checkTree(t []node, psi, d int32, depth []int32) bool {
	if len(t) == 0 || t[0].Size != psi {
		return false
	}
	depth[0] = 0
	for i, nd := range t {
		if depth[i] < 0 || nd.Depth != depth[i] {
			return false // unreachable, or at the wrong depth
		}
		if nd.Left < 0 {
			if nd.Left != -1 || nd.Right != -1 || nd.Size < 1 {
				return false
			}
			continue
		}
		l, r := int(nd.Left), int(nd.Right)
		if nd.Feature < 0 || nd.Feature >= d || math.IsNaN(nd.Value) || math.IsInf(nd.Value, 0) ||
			l <= i || r <= i || l >= len(t) || r >= len(t) || l == r || depth[l] >= 0 || depth[r] >= 0 ||
			int64(t[l].Size)+int64(t[r].Size) != int64(nd.Size) {
			return false
		}
		depth[l], depth[r] = nd.Depth+1, nd.Depth+1
	}
	return true
}

// memory estimates the peak bytes of a fit or a score. A fit holds the
// trees' draws (a seed, a state and ψ row indices each, with the
// permutation scratch of each worker when n < 100ψ) and their union as it
// is merged; the rows of that union (u rows, its expected size
// n·(1 − (1 − ψ/n)^Trees): as read and scaled, or, when the trees draw
// every row, every row once, which the threshold then scores as they
// are), in float32 too in single precision; the trees (at most 2ψ − 1
// nodes of 32 bytes each: binary columns come near it, Gaussian ones
// take a quarter of it); then the training rows it scores for
// the threshold (a chunk scaled at a time, or ThresholdRows rows read by
// index) and their scores, which the threshold and the warning copy.
// Saving the trees allocates their encoded size, 48 bytes a node. Score
// holds the scores and each worker's block of path sums (and of rows
// rounded to float32, in single precision).
func memory(f *IForest, op method.Op, s method.Size) float64 {
	n, d := float64(s.Rows), float64(s.Cols)
	workers := float64(runtime.GOMAXPROCS(0))
	rowBuf := workers * scoreBlock * 36 // each worker's path sums, rows and leaves
	if f.cfg.Precision == Single {
		rowBuf += workers * 8 * math.Min(scoreBlock*d, copiedValues) // and its rows rounded
	}
	trees := float64(f.cfg.Trees)
	if op == method.ScoreOp {
		// The model file's bytes are counted apart; its trees' walk
		// layout (newWalk, 24 bytes a node) is made at Load.
		return 8*n + rowBuf + trees*(2*float64(f.cfg.Samples)-1)*24
	}
	psi := math.Min(float64(f.cfg.Samples), n)
	scaled := f.cfg.Scale != "none"
	// rowsBytes is the memory of k rows as a matrix.
	rowsBytes := func(k float64) float64 {
		if s.Sparse && n > 0 {
			return 16*k*float64(s.NonZeros)/n + 8*k
		}
		return 8 * k * d
	}
	u := n
	if n > 0 {
		u = n * -math.Expm1(trees*math.Log1p(-psi/n))
	}
	draw := trees*(8+24+8*psi) + 16*trees*psi // the draws, and the union's merge rounds
	if r := psi / n; r > 0.01 && r < 0.99 {
		draw += workers * 8 * n
	}
	grow := workers * (16*d + 8*psi)
	if f.cfg.Precision == Single && !s.Sparse {
		grow += 4 * u * d
	}
	forest := trees * (2*psi - 1) * (32 + 24) // the nodes, and their walk layout
	save := trees * (2*psi - 1) * 48
	train := 2*8*math.Min(n, ThresholdRows) + rowBuf
	var held, read, thresh float64
	switch {
	case s.Resident && scaled:
		read = rowsBytes(u) // the scaled copy of the rows in memory
	case s.Resident: // the caller's rows, read in place
	case u > n-0.5 && n <= ThresholdRows:
		held = rowsBytes(n) // every row, read once and scored as read
	case scaled:
		read = 2 * rowsBytes(u) // the rows read and their scaled copy
	default:
		read = rowsBytes(u)
	}
	switch {
	case n > ThresholdRows && scaled:
		thresh = 2 * rowsBytes(ThresholdRows)
	case n > ThresholdRows:
		thresh = rowsBytes(ThresholdRows)
	case scaled && held == 0: // a chunk scaled at a time
		thresh = 8 * math.Min(n, float64(method.ChunkRows(s.Cols))) * d
	}
	return forest + held + math.Max(math.Max(draw+read+8*u+grow, thresh+train), save)
}
