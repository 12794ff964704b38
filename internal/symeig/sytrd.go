package symeig

import (
	"context"
	"math"

	"github.com/kernelad/anomaly/internal/fastmath"
	"github.com/kernelad/anomaly/internal/parallel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/gonum"
)

// Blocked reduction of a symmetric matrix to tridiagonal form, for
// Reduce, the Lanczos matrix at each Rayleigh–Ritz step (k in the
// hundreds), and for ReduceUpperInPlace, the kernel matrix itself in
// kernel PCA's dense route (n in the thousands). It is LAPACK's dsytrd with
// uplo = L as gonum implements it (panels of sytrdBlock columns by dlatrd,
// each followed by a rank-2·sytrdBlock update of the trailing matrix, the
// last sytrdCross columns by dsytd2), and it leaves d, e, tau and the
// reflectors where gonum's Dsytrd does, so that Dormqr applies them. Two
// parts are replaced, the ones that took 95% of the time at n = 2,000:
//
//   - dlatrd's product of the trailing matrix with the new reflector
//     (dsymv with the reflector read down a column of the row-major matrix,
//     1.1 GFlop/s in gonum) is symvLower on a contiguous copy, with the rows
//     split between the cores;
//   - the trailing update A −= V·Wᵀ + W·Vᵀ (gonum's dsyr2k, serial) is
//     [V W]·[W V]ᵀ by fastmath.MulNN (inner dimension 2·sytrdBlock) in
//     tiles of the lower triangle, on all cores.
//
// Eigenvalues and eigenvectors through it equal gonum's EigenSym's to
// rounding (TestSytrdLower). At n = 2,000 (50 pairs of an RBF kernel
// matrix) kpca's denseTop took 8.3 s with gonum's Dsytrd and takes 1.6 s; at
// k = 200 and 500 the reduction takes 3.0–3.2 and 35 ms against 3.6–5.8
// and 92–97 ms (kpca's BenchmarkLanczosParts); on the Lanczos runs of six
// ADBench sets the fit times are within noise of gonum's.
const (
	sytrdBlock = 32 // panel width, gonum's Ilaenv block size for DSYTRD
	sytrdCross = 32 // below this many trailing columns, gonum's unblocked Dsytd2 (gonum's crossover too)
)

// ReduceBytes bounds the scratch bytes of the reduction of an n × n
// matrix in place: the panel W and latrdLower's vectors, and syr2kLower's
// copies [V W] and [W V]ᵀ of a panel (Reduce adds its n × n copy).
func ReduceBytes(n int) int64 {
	N := int64(n)
	return 8 * (N*(sytrdBlock+2+symvParts) + 2*N*2*sytrdBlock)
}

// sytrdLower reduces the symmetric n × n matrix a (row-major, stride lda,
// lower triangle read) to tridiagonal form Qᵀ·A·Q = J: d is J's diagonal, e
// its subdiagonal, and Q's reflectors are stored below the subdiagonal of a
// with their scales in tau, as gonum's Dsytrd(blas.Lower) leaves them.
// It returns ctx.Err() once ctx is done, leaving a half reduced: ctx is
// looked at between the columns of a panel and between the tiles of its
// update (a whole panel at n = 5,000 is a few tenths of a second, a column
// or a tile a few milliseconds). It reports the columns reduced to
// progress (may be nil) after every panel.
func sytrdLower(ctx context.Context, impl gonum.Implementation, n int, a []float64, lda int, d, e, tau []float64, progress func(done, total int)) error {
	const nb = sytrdBlock
	w := make([]float64, n*nb)
	scratch := make([]float64, (2+symvParts)*n) // latrdLower's x, y and symvLower's partial sums
	i := 0
	for ; i < n-sytrdCross; i += nb {
		m := n - i
		if err := latrdLower(ctx, impl, m, a[i*lda+i:], lda, e[i:], tau[i:], w, scratch); err != nil {
			return err
		}
		if err := syr2kLower(ctx, m-nb, a[(i+nb)*lda+i:], lda, w[nb*nb:], nb, a[(i+nb)*lda+i+nb:], lda); err != nil {
			return err
		}
		for j := i; j < i+nb; j++ {
			a[(j+1)*lda+j] = e[j]
			d[j] = a[j*lda+j]
		}
		if progress != nil {
			progress(i+nb, n)
		}
	}
	impl.Dsytd2(blas.Lower, n-i, a[i*lda+i:], lda, d[i:], e[i:], tau[i:])
	return nil
}

// latrdLower is gonum's Dlatrd(blas.Lower, n, sytrdBlock, …) with the
// symmetric product done by symvLower on contiguous vectors; w is n ×
// sytrdBlock (stride sytrdBlock), scratch at least (2 + symvParts)·n. It
// returns ctx.Err() between columns once ctx is done.
func latrdLower(ctx context.Context, impl gonum.Implementation, n int, a []float64, lda int, e, tau, w, scratch []float64) error {
	const nb, ldw = sytrdBlock, sytrdBlock
	bi := blas64.Implementation()
	x, y, parts := scratch[:n], scratch[n:2*n], scratch[2*n:]
	for i := 0; i < nb; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		// Update A(i:n, i).
		bi.Dgemv(blas.NoTrans, n-i, i, -1, a[i*lda:], lda, w[i*ldw:], 1, 1, a[i*lda+i:], lda)
		bi.Dgemv(blas.NoTrans, n-i, i, -1, w[i*ldw:], ldw, a[i*lda:], 1, 1, a[i*lda+i:], lda)
		if i == n-1 {
			continue
		}
		// Generate the reflector H_i that annihilates A(i+2:n, i).
		e[i], tau[i] = impl.Dlarfg(n-i-1, a[(i+1)*lda+i], a[min(i+2, n-1)*lda+i:], lda)
		a[(i+1)*lda+i] = 1
		// W(i+1:n, i) = A(i+1:n, i+1:n)·v, v = A(i+1:n, i).
		m := n - i - 1
		for r := 0; r < m; r++ {
			x[r] = a[(i+1+r)*lda+i]
		}
		symvLower(m, a[(i+1)*lda+i+1:], lda, x[:m], y[:m], parts)
		for r := 0; r < m; r++ {
			w[(i+1+r)*ldw+i] = y[r]
		}
		bi.Dgemv(blas.Trans, m, i, 1, w[(i+1)*ldw:], ldw, a[(i+1)*lda+i:], lda, 0, w[i:], ldw)
		bi.Dgemv(blas.NoTrans, m, i, -1, a[(i+1)*lda:], lda, w[i:], ldw, 1, w[(i+1)*ldw+i:], ldw)
		bi.Dgemv(blas.Trans, m, i, 1, a[(i+1)*lda:], lda, a[(i+1)*lda+i:], lda, 0, w[i:], ldw)
		bi.Dgemv(blas.NoTrans, m, i, -1, w[(i+1)*ldw:], ldw, w[i:], ldw, 1, w[(i+1)*ldw+i:], ldw)
		bi.Dscal(m, tau[i], w[(i+1)*ldw+i:], ldw)
		alpha := -0.5 * tau[i] * bi.Ddot(m, w[(i+1)*ldw+i:], ldw, a[(i+1)*lda+i:], lda)
		bi.Daxpy(m, alpha, a[(i+1)*lda+i:], lda, w[(i+1)*ldw+i:], ldw)
	}
	return nil
}

// symvParts is the number of row ranges of symvLower, each summed into its
// own vector; fixed (not the core count) so that the sums, and so the
// reduction, are the same on every machine.
const symvParts = 4

// symvLower sets y = A·x for the symmetric m × m matrix A whose lower
// triangle is in a (stride lda): row r adds A[r, 0:r]·x[0:r] + A[r,r]·x[r]
// to y[r] and x[r]·A[r, 0:r] to y[0:r], reading the row once from memory.
// The rows are split into symvParts ranges of equal area, summed apart
// into scratch (at least symvParts·m) and added in order.
func symvLower(m int, a []float64, lda int, x, y, scratch []float64) {
	clear(y)
	if m < 256 {
		symvRows(a, lda, x, y, 0, m)
		return
	}
	var bounds [symvParts + 1]int
	for p := 1; p < symvParts; p++ {
		bounds[p] = int(float64(m) * math.Sqrt(float64(p)/symvParts))
	}
	bounds[symvParts] = m
	parallel.ForBlocks(symvParts, func() func(int) {
		return func(p int) {
			part := scratch[p*m : p*m+bounds[p+1]]
			clear(part)
			symvRows(a, lda, x, part, bounds[p], bounds[p+1])
		}
	})
	for p := range symvParts {
		floats.Add(y[:bounds[p+1]], scratch[p*m:p*m+bounds[p+1]])
	}
}

// symvRows adds rows lo..hi−1's terms of symvLower to y (at least hi long).
func symvRows(a []float64, lda int, x, y []float64, lo, hi int) {
	for r := lo; r < hi; r++ {
		row := a[r*lda : r*lda+r]
		y[r] += floats.Dot(row, x[:r]) + a[r*lda+r]*x[r]
		floats.AddScaled(y[:r], x[r], row)
	}
}

// syr2kTile is the row and column tile of syr2kLower.
const syr2kTile = 64

// syr2kLower sets C = C − V·Wᵀ − W·Vᵀ on the lower triangle of the m × m
// matrix C (stride ldc), for V (m × sytrdBlock, stride lda) and W (m ×
// sytrdBlock, stride ldw): with P = [V W] and Q = [W V], C −= P·Qᵀ, one
// fastmath.MulNN per 64 × 64 tile on or below the diagonal. Once ctx is
// done it returns ctx.Err() between rows of tiles, with C partly updated.
func syr2kLower(ctx context.Context, m int, v []float64, lda int, w []float64, ldw int, c []float64, ldc int) error {
	const nb, k = sytrdBlock, 2 * sytrdBlock
	if m <= 0 {
		return nil
	}
	p := make([]float64, m*k)  // [V W], row-major
	qt := make([]float64, k*m) // [W V]ᵀ, row-major
	for r := 0; r < m; r++ {
		copy(p[r*k:r*k+nb], v[r*lda:r*lda+nb])
		copy(p[r*k+nb:r*k+k], w[r*ldw:r*ldw+nb])
		for l := 0; l < nb; l++ {
			qt[l*m+r] = w[r*ldw+l]
			qt[(nb+l)*m+r] = v[r*lda+l]
		}
	}
	tiles := (m + syr2kTile - 1) / syr2kTile
	// Row tiles from the bottom, whose rows are the longest, so that the
	// workers pulling tiles finish together.
	return parallel.ForBlocksContext(ctx, tiles, func() func(int) {
		t := make([]float64, syr2kTile*syr2kTile)
		return func(b int) {
			r0 := (tiles - 1 - b) * syr2kTile
			r1 := min(r0+syr2kTile, m)
			for c0 := 0; c0 < r1; c0 += syr2kTile {
				c1 := min(c0+syr2kTile, r1)
				fastmath.MulNN(t, syr2kTile, p[r0*k:], k, qt[c0:], m, r1-r0, c1-c0, k)
				for r := r0; r < r1; r++ {
					end := min(c1, r+1)
					if end <= c0 {
						continue
					}
					floats.Sub(c[r*ldc+c0:r*ldc+end], t[(r-r0)*syr2kTile:(r-r0)*syr2kTile+end-c0])
				}
			}
		}
	})
}
