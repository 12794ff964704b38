package kpca

import (
	"errors"
	"fmt"
	"math"
	"runtime"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/randfeat"
)

// stateVersion is the version of the saved state (method.Info.Version).
const stateVersion = 1

func init() {
	method.Register(method.Info{
		Name:    "kpca",
		Summary: "kernel PCA; score = squared reconstruction error of the centred φ(x) in feature space (exact or Nyström)",
		Version: stateVersion,
		MinRows: 2,
		Lighter: map[string]string{"method": "nystrom"},
	}, New, memory)
}

// memory estimates the peak bytes of a fit or a score on data of size s.
//
// A fit holds the dense scaled copy of the rows (Fitting's; sparse rows
// are densified, and the stage's passes over them densify a chunk each).
// The exact method adds the n × n Gram matrix and
// eigenBytes' bound on the eigensolver's buffers; once these are freed,
// the model's projection and its prepared training rows (crossBytes), and
// the larger of saving the model (the projection transposed and the
// encoded state) and rescoring near ties. Nyström adds the landmarks and
// the map's construction (randfeat.NystromBytes, its own copy of the
// landmarks included), the n × m features, per-row norms and the block
// scratch, and the m × m covariance with its block scratch and its
// eigensolver.
//
// A score holds, per worker, the kernel block of Score (blockRows rows
// against the training rows or landmarks) and its scratch; sparse rows
// add their densified chunk.
func memory(p *KPCA, op method.Op, s method.Size) float64 {
	n, d := float64(s.Rows), float64(s.Cols)
	kind := p.cfg.Kernel.Kind
	if op == method.ScoreOp {
		sparse := 0.0
		if s.Sparse {
			// The chunk Base densifies, and the stage's copy of it
			// (method.Memory counts the sparse chunk's bytes).
			sparse = 2 * 8 * math.Min(n, float64(method.ChunkRows(s.Cols))) * d
		}
		m, ok := p.Model()
		if !ok {
			return 8*n + sparse
		}
		nt, _ := m.cross.dims()
		return 8*n + sparse + scoreBytes(nt, s.Cols, len(m.vals), m.ny != nil, m.blockRows())
	}
	rows := 8 * n * d // the scaled dense copy
	if s.Sparse {
		// The scale stage's two passes over the rows densify a chunk
		// each (resident until the collector returns it).
		rows += 2 * 8 * math.Min(n, float64(method.ChunkRows(s.Cols))) * d
	}
	if p.cfg.Method == Nystrom {
		mi := min(p.cfg.Landmarks, s.Rows)
		qi := p.cfg.Components
		if qi == 0 {
			qi = int(math.Ceil(p.cfg.Variance * float64(mi)))
		}
		qi = min(qi, mi)
		m, q := float64(mi), float64(qi)
		// The map's construction (its landmarks and K_mm^(−1/2) kept,
		// its scratch freed) stays beside the features: their n × m
		// block cannot reuse what the collector freed, and the prepared
		// landmarks take the freed span of the landmarks drawn.
		build := 8*m*d + float64(randfeat.NystromBytes(mi, s.Cols))
		block := float64(max(4, min(4096, featureWork/max(mi*(s.Cols+mi), 1))))
		features := 8 * (n*m + 3*n + block*(2*m+d+q))
		cov := 8*(m*m+covRows*m+float64(runtime.GOMAXPROCS(0))*covStrip*m) + float64(denseBytes(mi, qi, p.cfg.Variance))
		return rows + build + features + cov
	}
	q := min(p.cfg.Components, max(s.Rows-1, 0))
	gram := 8*n*float64(paddedStride(s.Rows)) + float64(eigenBytes(s.Rows, q, p.cfg.Variance))
	// After the Gram matrix and the eigensolver's buffers are freed: the
	// projection (the variance rule's q is at most what the eigensolver
	// can return: every column up to denseMax rows, the Lanczos basis
	// above), the prepared training rows, and the larger of saving (the
	// projection transposed, and the encoded state: the rows, the
	// projection and the row means) and rescoring near ties.
	qs := q
	if q == 0 {
		qs = s.Rows
		if s.Rows > denseMax {
			_, qs = basisColumns(s.Rows, eigTarget{}.lanczosStart())
		}
	}
	proj := 8 * n * float64(qs)
	save := proj + 8*n*(d+float64(qs)+1)
	rowsEst := max(4, min(512, scoreValues/max(s.Rows, 1), scoreWork/max(s.Rows*(s.Cols+max(qs, 1)+1), 1)))
	after := proj + crossBytes(kind, s.Rows, s.Cols) + max(save, scoreBytes(s.Rows, s.Cols, qs, false, rowsEst))
	return rows + max(gram, after)
}

// scoreBytes is what Score allocates for rows of d columns against a
// model of nt training rows or landmarks (nyst) and q components, in
// blocks of rows rows: per worker, the kernel block, the rbf kernel's
// centred rows, and for Nyström the features and their projections.
func scoreBytes(nt, d, q int, nyst bool, rows int) float64 {
	per := float64(nt + d + 2)
	if nyst {
		per += float64(nt + max(q, 1))
	}
	workers := float64(runtime.GOMAXPROCS(0))
	return workers * 8 * float64(rows) * per
}

// state is the saved model: its field names and types are the file
// format (models saved by earlier builds load).
type state struct {
	Gamma     float64
	D         int
	Vals      []float64
	Explained float64
	// exact
	N       int
	X       []float64
	RowMean []float64
	Grand   float64
	Proj    []float64 // rows × max(q, 1)
	// Nyström
	Landmarks []float64 // m × d
	ZMean     []float64
	// The landmark map's K_mm^{-1/2} (m × m) and rank, so that loading
	// skips its eigendecomposition; absent from models saved before them,
	// which rebuild it from the landmarks.
	NystromNorm []float64
	NystromRank int
}

// flatT returns mᵀ's values row by row (one allocation, no transposed
// copy of m first).
func flatT(m *mat.Dense) []float64 {
	r, c := m.Dims()
	out := make([]float64, r*c)
	for i := 0; i < r; i++ {
		for j, v := range m.RawRowView(i) {
			out[j*r+i] = v
		}
	}
	return out
}

// MarshalBinary encodes the model: for the exact method the training
// rows, their kernel row means and the projection U Λ^{-1/2}; for Nyström
// the landmarks, the map's K_mm^{-1/2}, the mean feature vector and the
// principal axes.
func (m *model) MarshalBinary() ([]byte, error) {
	s := state{Gamma: m.gamma, D: m.d, Vals: m.vals, Explained: m.explained}
	if m.ny != nil {
		s.Proj = method.RowMajor(m.proj)
		s.Landmarks = method.RowMajor(m.ny.Landmarks.(*mat.Dense))
		s.ZMean = m.zMean
		s.NystromNorm, s.NystromRank = method.RowMajor(m.ny.Norm), m.ny.Rank()
	} else {
		s.N = len(m.rowMean)
		s.Proj = flatT(m.pt) // rows × max(q, 1), as saved before the model kept it transposed
		s.X = method.RowMajor(m.x)
		s.RowMean = m.rowMean
		s.Grand = m.grand
	}
	return method.EncodeState("kpca", s)
}

var errState = errors.New("kpca: invalid model state")

// rebuildLandmarks is the most landmarks of a saved Nyström model without
// its map (saved before the state kept it) that decode rebuilds the map
// for: ten times the default, an eigendecomposition of some seconds and
// about 1 GB (randfeat.NystromBytes). The map's size is not bounded by
// the file's (m × d landmarks give an m × m matrix), so a crafted file of
// a million one-column landmarks would otherwise ask for terabytes.
const rebuildLandmarks = 10 * DefaultLandmarks

// sized reports whether v holds rows × cols values, compared by division
// so that no product of sizes read from a file can wrap: rows and cols
// must be positive.
func sized(v []float64, rows, cols int) bool {
	return rows > 0 && cols > 0 && len(v)%cols == 0 && len(v)/cols == rows
}

// finite reports whether x is neither NaN nor ±Inf.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// decode rebuilds a model written by MarshalBinary for dim columns. The
// bytes are input: every size is checked against the arrays present (by
// division, so that no product of sizes can wrap) and every value for
// finiteness before anything is built, and the state's column count
// against dim.
func (p *KPCA) decode(b []byte, dim int) (*model, error) {
	var s state
	if err := method.DecodeState("kpca", b, &s); err != nil {
		return nil, err
	}
	linear := p.cfg.Kernel.Kind == "linear"
	if s.D < 1 || !finite(s.Gamma) || !(linear || s.Gamma > 0) || !finite(s.Explained) || !method.Finite(s.Vals, s.Proj) {
		return nil, errState
	}
	if s.D != dim {
		return nil, fmt.Errorf("kpca: the state is for %d columns, the model's shared state for %d", s.D, dim)
	}
	for _, v := range s.Vals {
		if !(v > 0) {
			return nil, errState
		}
	}
	kern, err := p.spec().New(s.Gamma)
	if linear {
		kern, err = kernel.Linear{}, nil
	}
	if err != nil {
		return nil, errState
	}
	q := len(s.Vals)
	cols := max(q, 1)
	m := &model{kern: kern, gamma: s.Gamma, d: s.D, vals: s.Vals, explained: s.Explained}
	if p.cfg.Method == Nystrom {
		if !sized(s.Landmarks, len(s.Landmarks)/s.D, s.D) || !method.Finite(s.Landmarks, s.ZMean, s.NystromNorm) {
			return nil, errState
		}
		k := len(s.Landmarks) / s.D
		if len(s.ZMean) != k || !sized(s.Proj, k, cols) || q > k {
			return nil, errState
		}
		lm := mat.NewDense(k, s.D, s.Landmarks)
		var ny *randfeat.Nystrom
		if s.NystromNorm != nil {
			if !sized(s.NystromNorm, k, k) {
				return nil, errState
			}
			ny, err = randfeat.RestoreNystrom(kern, lm, mat.NewDense(k, k, s.NystromNorm), s.NystromRank)
		} else {
			// A model saved before the state kept the map: it is
			// rebuilt, at the cost of an m × m eigendecomposition,
			// which a crafted file must not make arbitrarily large.
			if k > rebuildLandmarks {
				return nil, errState
			}
			ny, err = randfeat.NewNystrom(kern, lm)
		}
		if err != nil {
			return nil, errState
		}
		m.setNystrom(ny, s.ZMean, mat.NewDense(k, cols, s.Proj))
		return m, nil
	}
	n := s.N
	if n < 2 || !sized(s.X, n, s.D) || len(s.RowMean) != n || !sized(s.Proj, n, cols) || q > n ||
		!method.Finite(s.X, s.RowMean) || !finite(s.Grand) {
		return nil, errState
	}
	m.setExact(mat.NewDense(n, s.D, s.X), s.RowMean, s.Grand, transposed(mat.NewDense(n, cols, s.Proj)))
	return m, nil
}
