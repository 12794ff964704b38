package symeig

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/kernelad/anomaly/internal/fastmath"
	"github.com/kernelad/anomaly/internal/parallel"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

// Tridiag is the reduction of a symmetric k × k matrix to tridiagonal
// form, T = Q·J·Qᵀ (LAPACK's dsytrd, lower triangle, by sytrdLower): J's diagonal d and
// subdiagonal e, and Q as k − 1 Householder reflectors (a, tau).
//
// The Lanczos matrix of kpca's blockLanczos is reduced once a step; its
// eigenvalues come from J alone (dsterf), and the few eigenvectors the
// Ritz pairs need from inverse iteration on J and Q applied to them. A
// full eigendecomposition with vectors (dsteqr accumulating every rotation
// into a k × k matrix) took 0.10–0.14 s a call at k ≈ 320, most of the
// time of a q = 50 fit outside the passes over the kernel matrix.
type Tridiag struct {
	k         int
	a         []float64 // k × k row-major (stride lda): the reflectors below the subdiagonal
	lda       int
	d, e, tau []float64
	normJ     float64 // ‖J‖∞
	impl      gonum.Implementation
}

// Reduce reduces a copy of the symmetric matrix t (its lower triangle
// is read): the Lanczos matrix, at each Rayleigh–Ritz step (k in the
// hundreds, a few hundredths of a second: the caller checks its context
// between steps).
func Reduce(t *mat.Dense) *Tridiag {
	r, _ := ReduceContext(context.Background(), t)
	return r
}

// ReduceContext is Reduce returning ctx.Err() between panels once ctx is
// done.
func ReduceContext(ctx context.Context, t *mat.Dense) (*Tridiag, error) {
	return ReduceContextProgress(ctx, t, nil)
}

// ReduceContextProgress is ReduceContext that reports the columns
// reduced, as ReduceUpperInPlaceProgress does (progress may be nil): at
// k = 2,000, as kernel PCA's Lanczos matrix reaches with hundreds of
// pairs, the reduction takes about a second.
func ReduceContextProgress(ctx context.Context, t *mat.Dense, progress func(done, total int)) (*Tridiag, error) {
	k, _ := t.Dims()
	r := newTridiag(make([]float64, k*k), k, k)
	tr := t.RawMatrix()
	for i := 0; i < k; i++ {
		copy(r.a[i*k:i*k+i+1], tr.Data[i*tr.Stride:i*tr.Stride+i+1])
	}
	if err := r.reduce(ctx, progress); err != nil {
		return nil, err
	}
	if progress != nil {
		progress(k, k)
	}
	return r, nil
}

// ReduceUpperInPlace reduces the symmetric matrix a, of which only the
// upper triangle (j ≥ i) is read, in a's own storage: the upper triangle is
// mirrored into the lower one, which the reduction then overwrites with
// its reflectors, and the diagonal is put back afterwards. When it returns,
// a's upper triangle and diagonal are as they were and its lower triangle
// holds the reflectors (which vectors reads). It is kpca's dense route for
// the n × n kernel matrix: a copy would double the fit's largest
// allocation (392 MB at 7,000 rows). Once ctx is done it returns
// ctx.Err(), with a's lower triangle and diagonal overwritten.
func ReduceUpperInPlace(ctx context.Context, a *mat.Dense) (*Tridiag, error) {
	return ReduceUpperInPlaceProgress(ctx, a, nil)
}

// ReduceUpperInPlaceProgress is ReduceUpperInPlace that reports the
// columns reduced: progress(done, k) after every panel and (k, k) at the
// end (progress may be nil). At k = 2,000 the reduction takes about a
// second, at 5,000 tens of seconds (kernel PCA's dense route).
func ReduceUpperInPlaceProgress(ctx context.Context, a *mat.Dense, progress func(done, total int)) (*Tridiag, error) {
	k, _ := a.Dims()
	raw := a.RawMatrix()
	r := newTridiag(raw.Data, raw.Stride, k)
	s := raw.Stride
	// Row i's upper part is column i's lower part: transpose in tiles so
	// that both sides stay cached (the two parts do not overlap).
	const tile = 64
	for i0 := 0; i0 < k; i0 += tile {
		for j0 := i0; j0 < k; j0 += tile {
			for i := i0; i < min(i0+tile, k); i++ {
				for j := max(i+1, j0); j < min(j0+tile, k); j++ {
					r.a[j*s+i] = r.a[i*s+j]
				}
			}
		}
	}
	diag := make([]float64, k)
	for i := range diag {
		diag[i] = r.a[i*s+i]
	}
	if err := r.reduce(ctx, progress); err != nil {
		return nil, err
	}
	for i, v := range diag {
		r.a[i*s+i] = v
	}
	if progress != nil {
		progress(k, k)
	}
	return r, nil
}

// newTridiag returns a Tridiag for the k × k matrix in a (stride
// lda), not yet reduced.
func newTridiag(a []float64, lda, k int) *Tridiag {
	return &Tridiag{k: k, a: a, lda: lda, d: make([]float64, k), e: make([]float64, max(k-1, 0)), tau: make([]float64, max(k-1, 0))}
}

// reduce runs sytrdLower on r.a (with its progress reports) and sets
// ‖J‖∞.
func (r *Tridiag) reduce(ctx context.Context, progress func(done, total int)) error {
	k := r.k
	if k == 0 {
		return nil
	}
	if err := sytrdLower(ctx, r.impl, k, r.a, r.lda, r.d, r.e, r.tau, progress); err != nil {
		return err
	}
	for i := 0; i < k; i++ {
		s := math.Abs(r.d[i])
		if i > 0 {
			s += math.Abs(r.e[i-1])
		}
		if i < k-1 {
			s += math.Abs(r.e[i])
		}
		r.normJ = math.Max(r.normJ, s)
	}
	return nil
}

// values returns the eigenvalues in descending order, or nil when the QL
// iteration does not converge.
func (r *Tridiag) Values() []float64 {
	d := append([]float64(nil), r.d...)
	e := append([]float64(nil), r.e...)
	if !r.impl.Dsterf(r.k, d, e) {
		return nil
	}
	for i, j := 0, len(d)-1; i < j; i, j = i+1, j-1 {
		d[i], d[j] = d[j], d[i]
	}
	return d
}

// clusterGap is the distance between eigenvalues, relative to ‖J‖, below
// which their inverse-iteration vectors are kept orthogonal to each other
// explicitly (LAPACK's dstein uses the same 10⁻³).
const clusterGap = 1e-3

// vectors returns the unit eigenvectors of T for the eigenvalues vals
// (values' output, any of them, in any order) as the columns of a k ×
// len(vals) matrix, or nil when inverse iteration breaks down (ctx.Err()
// once ctx is done). Each is
// three steps of inverse iteration on J shifted by its eigenvalue, from a
// seeded random start, kept orthogonal to the vectors already found for
// eigenvalues within clusterGap·‖J‖, then multiplied by Q.
func (r *Tridiag) Vectors(ctx context.Context, vals []float64) (*mat.Dense, error) {
	return r.VectorsProgress(ctx, vals, nil)
}

// VectorsProgress is Vectors that reports its steps as VectorsTProgress
// does: one per vector of inverse iteration, then one per block of
// reflectors applied, ending at len(vals) + ⌈(k−1)/qBlock⌉ (progress may
// be nil).
func (r *Tridiag) VectorsProgress(ctx context.Context, vals []float64, progress func(done, total int)) (*mat.Dense, error) {
	k, m := r.k, len(vals)
	z := mat.NewDense(k, max(m, 1), nil)
	if k == 0 || m == 0 {
		return z, nil
	}
	found, step, total, err := r.invert(ctx, vals, progress)
	if found == nil || err != nil {
		return nil, err
	}
	zr := z.RawMatrix()
	for j := 0; j < m; j++ {
		for i, v := range found[j*k : j*k+k] {
			zr.Data[i*zr.Stride+j] = v
		}
	}
	if k > 1 { // z ← Q z: the reflectors act on rows 1..k−1
		if err := r.applyReflectors(ctx, zr.Data[zr.Stride:], zr.Stride, m, false, func(done int) { step(m + done) }); err != nil {
			return nil, err
		}
	}
	step(total)
	return z, nil
}

// VectorsT is Vectors with the vectors as the rows of a len(vals) × k
// matrix: Q is applied from the right to the rows inverse iteration wrote
// (applyQT), so no second k × len(vals) matrix is formed. Kernel PCA's
// dense route keeps hundreds of vectors of thousands of values this way.
func (r *Tridiag) VectorsT(ctx context.Context, vals []float64) (*mat.Dense, error) {
	return r.VectorsTProgress(ctx, vals, nil)
}

// VectorsTProgress is VectorsT that reports its steps: one per vector of
// inverse iteration, then one per block of reflectors applied, of
// len(vals) + ⌈(k−1)/qBlock⌉, ending at that total (progress may be nil).
// At k = 5,000 and a thousand vectors each part takes seconds.
func (r *Tridiag) VectorsTProgress(ctx context.Context, vals []float64, progress func(done, total int)) (*mat.Dense, error) {
	k, m := r.k, len(vals)
	if k == 0 || m == 0 {
		return mat.NewDense(max(m, 1), max(k, 1), nil), nil
	}
	found, step, total, err := r.invert(ctx, vals, progress)
	if found == nil || err != nil {
		return nil, err
	}
	if k > 1 { // each row ← row·Qᵀ, on its entries 1..k−1
		if err := r.applyReflectors(ctx, found[1:], k, m, true, func(done int) { step(m + done) }); err != nil {
			return nil, err
		}
	}
	step(total)
	return mat.NewDense(m, k, found), nil
}

// invert runs inverse iteration for vals (the first part of Vectors and
// VectorsT) and returns the vectors as rows, with step, which reports a
// count of the len(vals) + ⌈(k−1)/qBlock⌉ steps of both parts to progress
// (a no-op for nil progress), and that total.
func (r *Tridiag) invert(ctx context.Context, vals []float64, progress func(done, total int)) (found []float64, step func(done int), total int, err error) {
	total = len(vals) + (r.k-1+qBlock-1)/qBlock
	step = func(int) {}
	if progress != nil {
		step = func(done int) { progress(done, total) }
	}
	found, err = r.inverseIteration(ctx, vals, step)
	return found, step, total, err
}

// inverseIteration returns the unit eigenvectors of J for vals, one a
// row of a len(vals) × k slice (nil when it breaks down; ctx.Err() once
// ctx is done). Rows let the cluster orthogonalisation read the vectors
// found so far contiguously: with many close eigenvalues, as in the dense
// route's flat spectra, it is the bulk of the work (600 vectors of 2,000
// took 3.4 s read down the columns of a k × m matrix).
func (r *Tridiag) inverseIteration(ctx context.Context, vals []float64, progress func(done int)) ([]float64, error) {
	k, m := r.k, len(vals)
	found := make([]float64, m*k)
	eps := math.Nextafter(1, 2) - 1
	dl, dd, du := make([]float64, k-1), make([]float64, k), make([]float64, k-1)
	x, b := make([]float64, k), make([]float64, k)
	for j, lambda := range vals {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if progress != nil && j > 0 && j%vectorsReport == 0 {
			progress(j)
		}
		rng := rand.New(rand.NewPCG(uint64(j), 0x5eed))
		for i := range x {
			x[i] = 2*rng.Float64() - 1
		}
		shift := lambda
		for it := 0; it < 3; it++ {
			for try := 1; ; try++ {
				copy(dl, r.e)
				copy(du, r.e)
				for i := range dd {
					dd[i] = r.d[i] - shift
				}
				copy(b, x)
				if r.impl.Dgtsv(k, 1, dl, dd, du, b, 1) {
					break
				}
				if try == 4 {
					return nil, nil
				}
				// an exactly singular shift: move it off the eigenvalue
				shift += 10 * eps * math.Max(r.normJ, math.Abs(lambda)) * float64(try)
			}
			for c := 0; c < j; c++ {
				if math.Abs(vals[c]-lambda) > clusterGap*r.normJ {
					continue
				}
				zc := found[c*k : c*k+k] // vector c, found before
				floats.AddScaled(b, -floats.Dot(b, zc), zc)
			}
			var s float64
			for _, v := range b {
				s += v * v
			}
			s = math.Sqrt(s)
			if !(s > 0) || math.IsInf(s, 0) {
				return nil, nil
			}
			for i := range x {
				x[i] = b[i] / s
			}
		}
		copy(found[j*k:j*k+k], x)
	}
	return found, nil
}

// vectorsReport is how many vectors inverseIteration finds between two
// progress reports. It looks at its context before every vector: with
// many close eigenvalues a vector costs O(k) times the vectors of its
// cluster found before it, and 64 of them took 43 ms at k = 2,000.
const vectorsReport = 64

// applyQ sets C ← Q·C for the (k−1) × m matrix C (stride ldc) and Q the
// product of the k − 1 reflectors stored below r.a's subdiagonal, in
// blocks of qBlock reflectors from the last, as gonum's Dormqr (left, no
// transpose) does: each block is H = I − V·T·Vᵀ with T from Dlarft, and
// C ← C − V·(T·(Vᵀ·C)). The three products are fastmath's (MulNNPar on
// V and Vᵀ copied out dense, the rows of the update split between the
// cores) where gonum's Dlarfb ran its gemm at 2.6 GFlop/s a core: half of
// a full decomposition at k = 2,000. ctx is looked at between blocks (a
// block at k = 5,000 and a thousand columns is about 10⁹ flops).
func (r *Tridiag) applyQ(ctx context.Context, c []float64, ldc, m int) error {
	return r.applyReflectors(ctx, c, ldc, m, false, nil)
}

// applyQT sets C ← C·Qᵀ for the m × (k−1) matrix C (stride ldc): the rows
// of C are vectors in the coordinates the reflectors act on, and Z = Q·S
// for column vectors is Zᵀ = Sᵀ·Qᵀ for row vectors. Qᵀ = H_nbᵀ ⋯ H_1ᵀ, so
// the blocks go from the last, as in applyQ, each as
// C ← C − ((C·V)·Tᵀ)·Vᵀ on its trailing columns.
func (r *Tridiag) applyQT(ctx context.Context, c []float64, ldc, m int) error {
	return r.applyReflectors(ctx, c, ldc, m, true, nil)
}

// applyReflectors is applyQ, or with right applyQT; progress (may be nil)
// receives the number of blocks of reflectors applied after each.
func (r *Tridiag) applyReflectors(ctx context.Context, c []float64, ldc, m int, right bool, progress func(done int)) error {
	const nb = qBlock
	n := r.k - 1 // reflectors, and C's rows (its columns with right)
	if n <= 0 || m <= 0 {
		return nil
	}
	a, lda := r.a[r.lda:], r.lda
	t := make([]float64, nb*nb)
	tt := make([]float64, nb*nb) // T (Tᵀ with right), dense
	v := make([]float64, n*nb)   // V, (n − i) × ib
	vt := make([]float64, nb*n)  // Vᵀ
	w := make([]float64, nb*m)   // Vᵀ·C (C·V with right)
	tw := make([]float64, nb*m)  // T·Vᵀ·C (C·V·Tᵀ)
	// A block of rows of the update per core, kept across the blocks of
	// reflectors (allocated per block they were garbage of k/32 times
	// their size by the end).
	width := m
	if right {
		width = n
	}
	scratch := sync.Pool{New: func() any { b := make([]float64, qRows*width); return &b }}
	for i, done := ((n-1)/nb)*nb, 0; i >= 0; i, done = i-nb, done+1 {
		if err := ctx.Err(); err != nil {
			return err
		}
		if progress != nil && done > 0 {
			progress(done)
		}
		ib, np := min(nb, n-i), n-i
		r.impl.Dlarft(lapack.Forward, lapack.ColumnWise, np, ib, a[i*lda+i:], lda, r.tau[i:], t, nb)
		r.blockV(a[i*lda+i:], lda, np, ib, v, vt)
		denseT(t, nb, ib, tt, right)
		if right {
			ci := c[i:]
			fastmath.MulNNPar(w, ib, ci, ldc, v, ib, m, ib, np)
			fastmath.MulNNPar(tw, ib, w, ib, tt, ib, m, ib, ib)
			subMul(ci, ldc, m, np, tw, ib, vt, np, ib, &scratch)
			continue
		}
		ci := c[i*ldc:]
		fastmath.MulNNPar(w, m, vt, np, ci, ldc, ib, m, np)
		fastmath.MulNNPar(tw, m, tt, ib, w, m, ib, m, ib)
		subMul(ci, ldc, np, m, v, ib, tw, m, ib, &scratch)
	}
	return nil
}

// denseT writes the upper triangular ib × ib block factor T (stride nb,
// as Dlarft leaves it, with stale values below the diagonal) densely into
// tt (stride ib), zeros below the diagonal, or, with transpose, Tᵀ.
func denseT(t []float64, nb, ib int, tt []float64, transpose bool) {
	for p := 0; p < ib; p++ {
		for q := 0; q < ib; q++ {
			x := 0.0
			switch {
			case !transpose && q >= p:
				x = t[p*nb+q]
			case transpose && p >= q:
				x = t[q*nb+p]
			}
			tt[p*ib+q] = x
		}
	}
}

// subMul sets C −= A·B for C (rows × cols, stride ldc), A (rows × k,
// stride lda) and B (k × cols, stride ldb): blocks of qRows rows of the
// product in a scratch buffer from pool (qRows·cols values at least),
// the blocks split between the cores.
func subMul(c []float64, ldc, rows, cols int, a []float64, lda int, b []float64, ldb, k int, pool *sync.Pool) {
	parallel.ForRanges((rows+qRows-1)/qRows, 1, func(b0, b1 int) {
		tmp := pool.Get().(*[]float64)
		defer pool.Put(tmp)
		for blk := b0; blk < b1; blk++ {
			r0, r1 := blk*qRows, min((blk+1)*qRows, rows)
			fastmath.MulNN(*tmp, cols, a[r0*lda:], lda, b, ldb, r1-r0, cols, k)
			for row := r0; row < r1; row++ {
				floats.Sub(c[row*ldc:row*ldc+cols], (*tmp)[(row-r0)*cols:(row-r0+1)*cols])
			}
		}
	})
}

// blockV writes the block of ib reflectors stored column-wise below the
// diagonal of a (stride lda, np rows) densely: V (np × ib, unit diagonal,
// zeros above it) and Vᵀ.
func (r *Tridiag) blockV(a []float64, lda, np, ib int, v, vt []float64) {
	for row := 0; row < np; row++ {
		src := a[row*lda:]
		for j := 0; j < ib; j++ {
			var x float64
			switch {
			case row == j:
				x = 1
			case row > j:
				x = src[j]
			}
			v[row*ib+j] = x
			vt[j*np+row] = x
		}
	}
}

// qRows is the block of rows of C that applyQ updates with one product.
const qRows = 64

// qBlock is applyQ's block of reflectors, gonum's Dormqr block size.
const qBlock = 32
