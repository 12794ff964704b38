package randfeat

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/james-bowman/sparse"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/internal/fastmath"
	"github.com/kernelad/anomaly/internal/parallel"
	"github.com/kernelad/anomaly/internal/symeig"
	"github.com/kernelad/anomaly/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Nystrom is the Nyström feature map of a kernel on m landmarks
// l_1 … l_m: z(x) = K_mm^{-1/2} k_m(x), with k_m(x) = (k(l_1, x), …,
// k(l_m, x)) and K_mm the landmarks' Gram matrix, so that
// ⟨z(x), z(y)⟩ = k_m(x)ᵀ K_mm⁺ k_m(y). Its dimension is m.
//
// K_mm^{-1/2} is taken from the symmetric eigendecomposition
// K_mm = U Λ Uᵀ as U Λ_r^{-1/2} Uᵀ, where eigenvalues λ ≤ m·ε·λ_max
// (ε = 2⁻⁵², NumPy's matrix_rank tolerance), and all λ ≤ 0, are treated as
// 0 (their directions are dropped, a pseudo-inverse) rather than clamped to
// a floor as scikit-learn's Nystroem does.
//
// NewNystromCholesky builds the same map's cheaper form: z(x) = R⁻ᵀ k_r(x)
// over the r landmarks a pivoted Cholesky factorisation keeps, Factor = R
// and Norm nil (see there).
type Nystrom struct {
	K         kernel.Kernel
	Landmarks mat.Matrix // m × d: a dense copy, or the caller's *sparse.CSR
	Norm      *mat.Dense // m × m, K_mm^{-1/2} (pseudo-inverse square root); nil for the Cholesky form
	Factor    *mat.Dense // the Cholesky form's R (r × r, upper triangular, K_rr = RᵀR); nil for the eigen form
	rank      int
}

// NewNystrom builds the map for k on the rows of landmarks. A dense
// landmark matrix is copied; a *sparse.CSR is kept (do not modify it
// afterwards). It returns an error if there are no landmarks, the Gram
// matrix is not finite, its eigendecomposition fails, or it has no positive
// eigenvalue.
func NewNystrom(k kernel.Kernel, landmarks mat.Matrix) (*Nystrom, error) {
	return NewNystromContext(context.Background(), k, landmarks)
}

// NystromBytes bounds the bytes NewNystrom allocates for m dense
// landmarks of d columns: their copy, the m × m Gram matrix (reduced in
// place), the reduction's scratch, the eigensolver's (symeig.AllBytes),
// U_r·S and U_rᵀ, and Norm.
func NystromBytes(m, d int) int64 {
	M := int64(m)
	return 8*(M*int64(d)+4*M*M) + symeig.ReduceBytes(m) + symeig.AllBytes(m)
}

// NewNystromContext is NewNystrom that returns ctx.Err() once ctx is done,
// between the blocks of the landmarks' Gram matrix, the panels of its
// tridiagonal reduction and the sweeps of its eigensolver.
//
// The eigendecomposition is the internal symeig package's (blocked
// reduction, implicit QL with its rotations accumulated a block of
// columns at a time in registers, the reflectors applied by blocks), not
// gonum's EigenSym, whose rotations run down the columns of a row-major
// matrix: at m = 500, 1,000 and 2,000 landmarks it takes 0.10, 0.34–0.46
// and 2.8–4.3 s against EigenSym's 0.19, 1.44 and 28 s (BenchmarkAll in
// symeig, an RBF kernel matrix of 8 uniform features).
func NewNystromContext(ctx context.Context, k kernel.Kernel, landmarks mat.Matrix) (*Nystrom, error) {
	L := ownLandmarks(landmarks)
	m, _ := L.Dims()
	if m == 0 {
		return nil, errors.New("randfeat: Nystrom needs at least one landmark")
	}
	var K mat.SymDense
	if err := kernel.GramProgress(ctx, &K, k, L, nil); err != nil {
		return nil, err
	}
	raw := K.RawSymmetric() // the upper triangle, row-major
	for i := 0; i < m; i++ {
		for j, v := range raw.Data[i*raw.Stride+i : i*raw.Stride+m] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("randfeat: Nystrom landmark kernel matrix has a non-finite entry at (%d, %d)", i, i+j)
			}
		}
	}
	// Reduced in K's own storage: no m × m copy.
	var a mat.Dense
	a.SetRawMatrix(blas64.General{Rows: m, Cols: m, Stride: raw.Stride, Data: raw.Data})
	red, err := symeig.ReduceUpperInPlace(ctx, &a)
	if err != nil {
		return nil, err
	}
	vals, U, err := red.All(ctx)
	if err != nil {
		return nil, err
	}
	if vals == nil {
		return nil, errors.New("randfeat: Nystrom eigendecomposition of the landmark kernel matrix failed")
	}
	top := vals[0] // descending
	if !(top > 0) {
		return nil, errors.New("randfeat: Nystrom landmark kernel matrix has no positive eigenvalue")
	}
	tol := float64(m) * 0x1p-52 * top
	rank := 0
	for rank < m && vals[rank] > tol {
		rank++
	}
	// Norm = Σ_{λ_i > tol} λ_i^{-1/2} u_i u_iᵀ = (U_r S)(U_r)ᵀ with
	// S = diag(λ^{-1/2}) over the rank kept.
	us := make([]float64, m*rank) // U_r S, m × rank
	ut := make([]float64, rank*m) // U_rᵀ
	for i := 0; i < m; i++ {
		row := U.RawRowView(i)
		for j := 0; j < rank; j++ {
			us[i*rank+j] = row[j] / math.Sqrt(vals[j])
			ut[j*m+i] = row[j]
		}
	}
	norm := mat.NewDense(m, m, nil)
	nr := norm.RawMatrix()
	fastmath.MulNNPar(nr.Data, nr.Stride, us, rank, ut, m, m, m, rank)
	// Symmetrise away round-off so z is exactly the symmetric square root.
	for i := 0; i < m; i++ {
		for j := i + 1; j < m; j++ {
			v := (norm.At(i, j) + norm.At(j, i)) / 2
			norm.Set(i, j, v)
			norm.Set(j, i, v)
		}
	}
	return &Nystrom{K: k, Landmarks: L, Norm: norm, rank: rank}, nil
}

// RestoreNystrom rebuilds a map from what a saved model holds: the
// landmarks (copied when dense, as in NewNystrom), the matrix Norm of a map
// built by NewNystrom on them, and its Rank. Scoring with a saved model
// then skips the m × m eigendecomposition (0.34 s at m = 500, 37 s at
// m = 2,000 here). It returns an error when the shapes disagree, Norm is
// not finite or rank is not in [1, m]; it does not check that Norm belongs
// to the landmarks.
func RestoreNystrom(k kernel.Kernel, landmarks mat.Matrix, norm *mat.Dense, rank int) (*Nystrom, error) {
	L := ownLandmarks(landmarks)
	m, _ := L.Dims()
	if r, c := norm.Dims(); m == 0 || r != m || c != m {
		return nil, fmt.Errorf("randfeat: Nystrom matrix of %d × %d for %d landmarks", r, c, m)
	}
	if rank < 1 || rank > m {
		return nil, fmt.Errorf("randfeat: Nystrom rank %d for %d landmarks", rank, m)
	}
	for i := 0; i < m; i++ {
		for _, v := range norm.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, errors.New("randfeat: Nystrom matrix has a non-finite entry")
			}
		}
	}
	return &Nystrom{K: k, Landmarks: L, Norm: mat.DenseCopyOf(norm), rank: rank}, nil
}

// ownLandmarks returns the landmarks a map keeps: a sparse matrix (as a
// *sparse.CSR) as it is, anything else as a dense copy.
func ownLandmarks(landmarks mat.Matrix) mat.Matrix {
	landmarks = csr.Input(landmarks)
	if s, ok := landmarks.(*sparse.CSR); ok {
		return s
	}
	return mat.DenseCopyOf(landmarks)
}

// InputDim returns d, the landmarks' number of columns.
func (n *Nystrom) InputDim() int { _, c := n.Landmarks.Dims(); return c }

// Dim returns m, the number of landmarks (for the Cholesky form, those
// kept) and the map's dimension.
func (n *Nystrom) Dim() int { r, _ := n.Landmarks.Dims(); return r }

// Rank returns the number of eigenvalues of K_mm kept (above the cutoff);
// for the Cholesky form, Dim.
func (n *Nystrom) Rank() int { return n.rank }

// nystromRows is the number of rows of X one Transform step maps.
const nystromRows = 1024

// Transform sets dst to z(X) = K(X, L) K_mm^{-1/2}, a block of rows at a
// time (kernel.Cross and the product each use all cores), so the n × m
// kernel matrix is never held whole. A *sparse.CSR X is not densified.
func (n *Nystrom) Transform(dst *mat.Dense, X mat.Matrix) {
	X = csr.Input(X)

	m := n.Dim()
	r := sizeDst(dst, X, n.InputDim(), m)
	if r == 0 {
		return
	}
	if n.Factor != nil {
		n.transformChol(dst, X, r)
		return
	}
	var kx mat.Dense
	var buf *mat.Dense
	for i0 := 0; i0 < r; i0 += nystromRows {
		i1 := min(i0+nystromRows, r)
		xb := kernelRows(X, i0, i1, &buf)
		if kr, _ := kx.Dims(); kr != i1-i0 {
			kx.Reset()
		}
		kernel.Cross(&kx, n.K, xb, n.Landmarks)
		// fastmath's register-blocked product: gonum's gemm ran this
		// m-deep product at 2.6 GFlop/s a core (5 of the 8.5 s of a
		// 500-landmark kernel PCA fit on 32_shuttle's 49,097 rows).
		d, k, nm := dst.RawMatrix(), kx.RawMatrix(), n.Norm.RawMatrix()
		fastmath.MulNNPar(d.Data[i0*d.Stride:], d.Stride, k.Data, k.Stride, nm.Data, nm.Stride, i1-i0, m, m)
	}
}

// TransformRow returns z(x) in dst, resliced to m when cap(dst) ≥ m. It
// allocates one scratch vector of length m.
func (n *Nystrom) TransformRow(dst, x []float64) []float64 {
	m := n.Dim()
	if len(x) != n.InputDim() {
		panic("randfeat: TransformRow input has the wrong length")
	}
	if cap(dst) >= m {
		dst = dst[:m]
	} else {
		dst = make([]float64, m)
	}
	km := make([]float64, m)
	kernel.Row(km, n.K, x, n.Landmarks)
	if n.Factor != nil {
		n.FromKernelRow(dst, km)
		return dst
	}
	blas64.Gemv(blas.NoTrans, 1, n.Norm.RawMatrix(), blas64.Vector{N: m, Inc: 1, Data: km},
		0, blas64.Vector{N: m, Inc: 1, Data: dst})
	return dst
}

// transformChol is Transform for the Cholesky form: the kernel values of
// a block of rows, then R⁻ᵀ applied to each row by solveRows, ranges of
// rows on every core.
func (n *Nystrom) transformChol(dst *mat.Dense, X mat.Matrix, rows int) {
	m := n.Dim()
	kx := make([]float64, min(rows, nystromRows)*m)
	var buf *mat.Dense
	for i0 := 0; i0 < rows; i0 += nystromRows {
		i1 := min(i0+nystromRows, rows)
		xb := kernelRows(X, i0, i1, &buf)
		var k mat.Dense
		k.SetRawMatrix(blas64.General{Rows: i1 - i0, Cols: m, Stride: m, Data: kx[:(i1-i0)*m]})
		kernel.Cross(&k, n.K, xb, n.Landmarks)
		parallel.ForRanges(i1-i0, 16, func(lo, hi int) {
			tmp := make([]float64, (hi-lo)*cholPanel)
			n.solveRows(kx[lo*m:hi*m], hi-lo, tmp)
		})
		for i := i0; i < i1; i++ {
			copy(dst.RawRowView(i), kx[(i-i0)*m:(i-i0+1)*m])
		}
	}
}

// kernelRows returns rows [i0, i1) of X as kernel.Cross takes them: a
// CSR matrix's rows sliced (never densified), other rows by rowBlock.
func kernelRows(X mat.Matrix, i0, i1 int, buf **mat.Dense) mat.Matrix {
	if s, ok := X.(*sparse.CSR); ok {
		return csr.SliceRows(s, i0, i1)
	}
	return rowBlock(X, i0, i1, buf)
}
