package cpd

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// Leading eigenvectors of a Gram matrix for the svd initialisation.
//
// A full eigendecomposition (syev) of an n×n Gram matrix costs O(n³) with a
// large constant (the QR sweeps accumulate rotations into all n vectors),
// which dominates the svd initialisation of small tensors such as the
// 125×45 samples of the R1STM data. Only the R leading vectors are needed,
// so for n well above R they come from block subspace iteration with
// Rayleigh–Ritz (Saad, Numerical Methods for Large Eigenvalue Problems,
// ch. 5): a block of b = min(n, 2R+4) vectors, started deterministically
// from the b columns of G with the largest diagonal, is multiplied by G,
// re-orthonormalised (Householder QR) and rotated onto the Ritz vectors of
// QᵀGQ until the R leading Ritz pairs have residual
// ‖Gq − θq‖ ≤ subspaceTol·θ_1. The error of each vector is then at most
// the residual over the eigen-gap; the convergence factor per iteration is
// θ_{b+1}/θ_R, small for the low-rank-plus-noise tensors CP is used on. If
// the iteration has not converged after subspaceMaxIter steps (a flat
// spectrum) syev is used instead, so the result is always the leading
// eigenvectors to working accuracy.
const (
	subspaceTol     = 1e-10
	subspaceMaxIter = 40
	subspaceMinN    = 24
)

// subspaceBlock is the block size for k wanted vectors of an n×n matrix, or
// 0 when the full eigendecomposition is the better choice.
func subspaceBlock(n, k int) int {
	b := min(n, 2*k+4)
	if n < subspaceMinN || 3*b > n {
		return 0
	}
	return b
}

// topEigen writes the k leading eigenvectors of the symmetric matrix g
// (upper triangle used) into out, row-major n×k, by subspace iteration with
// block size b. It reports false if it did not converge.
func (s *eigScratch) topEigen(g blas64.Symmetric, k, b int, out []float64) bool {
	n := g.N
	if len(s.q) < n*b {
		s.q = make([]float64, n*b)
		s.z = make([]float64, n*b)
	}
	if len(s.h) < b*b {
		s.h = make([]float64, b*b)
		s.hw = make([]float64, b)
		s.tau = make([]float64, b)
		s.idx = make([]int, 0, n)
	}
	q := blas64.General{Rows: n, Cols: b, Stride: b, Data: s.q[:n*b]}
	z := blas64.General{Rows: n, Cols: b, Stride: b, Data: s.z[:n*b]}
	h := blas64.Symmetric{Uplo: blas.Upper, N: b, Stride: b, Data: s.h[:b*b]}
	hg := blas64.General{Rows: b, Cols: b, Stride: b, Data: s.h[:b*b]}
	if s.qrwork == nil || len(s.qrwork) < s.qrLen(n, b) {
		s.qrwork = make([]float64, s.qrLen(n, b))
	}
	if s.hwork == nil || len(s.hwork) < s.syevLen(b) {
		s.hwork = make([]float64, s.syevLen(b))
	}
	// Start: the b columns of G with the largest diagonal entries.
	idx := s.idx[:0]
	for i := range n {
		idx = append(idx, i)
	}
	sort.SliceStable(idx, func(a, c int) bool { return g.Data[idx[a]*g.Stride+idx[a]] > g.Data[idx[c]*g.Stride+idx[c]] })
	for j, c := range idx[:b] {
		for i := range n {
			if i <= c {
				q.Data[i*b+j] = g.Data[i*g.Stride+c]
			} else {
				q.Data[i*b+j] = g.Data[c*g.Stride+i]
			}
		}
	}
	s.orth(q)
	for range subspaceMaxIter {
		// Z = G Q, H = Qᵀ Z, H = V Θ Vᵀ.
		blas64.Symm(blas.Left, 1, g, q, 0, z)
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, q, z, 0, hg)
		if !lapack64.Syev(lapack.EVCompute, h, s.hw[:b], s.hwork, len(s.hwork)) {
			return false
		}
		// Ritz vectors Q V and G Q V, in descending order of θ.
		s.rotate(q, hg)
		s.rotate(z, hg)
		th := s.hw[:b]
		top := math.Abs(th[b-1])
		conv := true
		for r := range k {
			t := th[b-1-r]
			res := 0.0
			for i := range n {
				d := z.Data[i*b+b-1-r] - t*q.Data[i*b+b-1-r]
				res += d * d
			}
			if math.Sqrt(res) > subspaceTol*top {
				conv = false
				break
			}
		}
		if conv {
			for i := range n {
				for r := range k {
					out[i*k+r] = q.Data[i*b+b-1-r]
				}
			}
			return true
		}
		copy(q.Data, z.Data)
		s.orth(q)
	}
	return false
}

// rotate sets m = m·V in place, V = hg (b×b), using s.tmp.
func (s *eigScratch) rotate(m, v blas64.General) {
	if len(s.tmp) < len(m.Data) {
		s.tmp = make([]float64, len(m.Data))
	}
	t := blas64.General{Rows: m.Rows, Cols: m.Cols, Stride: m.Stride, Data: s.tmp[:len(m.Data)]}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, m, v, 0, t)
	copy(m.Data, t.Data)
}

// orth replaces the columns of q by an orthonormal basis (Householder QR,
// so the result is orthonormal even when q is rank-deficient).
func (s *eigScratch) orth(q blas64.General) {
	tau := s.tau[:q.Cols]
	lapack64.Geqrf(q, tau, s.qrwork, len(s.qrwork))
	lapack64.Orgqr(q, tau, s.qrwork, len(s.qrwork))
}

func (s *eigScratch) qrLen(n, b int) int {
	work := []float64{0}
	a := blas64.General{Rows: n, Cols: b, Stride: b, Data: make([]float64, n*b)}
	tau := make([]float64, b)
	lapack64.Geqrf(a, tau, work, -1)
	l := int(work[0])
	lapack64.Orgqr(a, tau, work, -1)
	return max(l, int(work[0]), n)
}

func (s *eigScratch) syevLen(n int) int {
	work := []float64{0}
	lapack64.Syev(lapack.EVCompute, blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: make([]float64, n*n)}, make([]float64, n), work, -1)
	return int(work[0])
}
