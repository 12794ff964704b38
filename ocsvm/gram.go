package ocsvm

import (
	"context"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/smo"
)

// CheckGram returns an error unless K is a square, symmetric, positive
// semi-definite matrix: symmetric to 1e-10 relative, and K + δI positive
// definite (a Cholesky factor exists) for δ = 1e-8·max(max_ij |K_ij|,
// ‖K‖_F), which admits eigenvalues down to −δ (rounding in a computed
// kernel matrix) and refuses any clearly negative one. It costs O(n³/3).
func CheckGram(K mat.Matrix) error { return checkGram(context.Background(), K, nil) }

// gramBlock is the block size of checkGram's Cholesky: a block column's
// update of a block of rows is about gramBlock²·n multiply-adds, some
// milliseconds at n = 10⁴, between two checks of the context.
const gramBlock = 64

// checkGram is CheckGram that returns ctx.Err() soon after ctx ends and
// reports its progress (stage "check", blocks of the factorisation done)
// to report, when not nil, at least every 100 ms. The factorisation is
// gonum's blocked right-looking Cholesky spelled out (lapack64.Potrf on
// the diagonal blocks, a triangular solve for the panel, products for the
// trailing rows), so that the context is heard between the products.
func checkGram(ctx context.Context, K mat.Matrix, report func(stage string, done, total int)) error {
	n, c := K.Dims()
	if n != c {
		return fmt.Errorf("precomputed kernel must be square, got %d × %d", n, c)
	}
	// The lower triangle, checked against the upper, into a copy that is
	// factorised in place.
	a := mat.NewDense(n, n, nil)
	raw := a.RawMatrix()
	var scale, frob float64
	for i := 0; i < n; i++ {
		if i%gramBlock == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		row := raw.Data[i*raw.Stride:]
		for j := 0; j <= i; j++ {
			x, y := K.At(i, j), K.At(j, i)
			scale = math.Max(scale, math.Abs(x))
			if math.Abs(x-y) > 1e-10*math.Max(1, math.Max(math.Abs(x), math.Abs(y))) {
				return fmt.Errorf("precomputed kernel is not symmetric: K[%d][%d] = %v, K[%d][%d] = %v", i, j, x, j, i, y)
			}
			if j < i {
				frob += 2 * x * x
			} else {
				frob += x * x
			}
			row[j] = x
		}
	}
	delta := 1e-8 * math.Max(scale, math.Sqrt(frob))
	if delta == 0 || math.IsInf(delta, 0) || math.IsNaN(delta) {
		delta = math.SmallestNonzeroFloat64 // all zeros: PSD; not finite: Potrf fails
	}
	for i := 0; i < n; i++ {
		raw.Data[i*raw.Stride+i] += delta
	}

	// The work: per block column, its diagonal block and panel (one unit)
	// and one unit per block of trailing rows.
	nb := (n + gramBlock - 1) / gramBlock
	total := nb * (nb + 1) / 2
	done := 0
	last := time.Now()
	tick := func() {
		done++
		if report != nil && (done == total || time.Since(last) >= 100*time.Millisecond) {
			report("check", done, total)
			last = time.Now()
		}
	}
	if report != nil {
		report("check", 0, total)
	}
	sub := func(i0, i1, j0, j1 int) blas64.General {
		return blas64.General{Rows: i1 - i0, Cols: j1 - j0, Stride: raw.Stride, Data: raw.Data[i0*raw.Stride+j0:]}
	}
	for k0 := 0; k0 < n; k0 += gramBlock {
		if err := ctx.Err(); err != nil {
			return err
		}
		k1 := min(n, k0+gramBlock)
		d := sub(k0, k1, k0, k1)
		l, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Lower, N: k1 - k0, Stride: d.Stride, Data: d.Data})
		if !ok {
			return fmt.Errorf("precomputed kernel: %w: K + δI has no Cholesky factor (δ = %.3g, 1e-8 of the matrix's scale; its leading minor of order %d or less is not positive), so K has an eigenvalue below −δ", smo.ErrNotPSD, delta, k1)
		}
		if k1 < n {
			blas64.Trsm(blas.Right, blas.Trans, 1, l, sub(k1, n, k0, k1))
		}
		tick()
		// The trailing lower triangle less the panel's products, a block
		// of rows at a time: A[i0:i1, k1:i1] −= P[i0:i1]·P[k1:i1]ᵀ.
		for i0 := k1; i0 < n; i0 += gramBlock {
			if err := ctx.Err(); err != nil {
				return err
			}
			i1 := min(n, i0+gramBlock)
			blas64.Gemm(blas.NoTrans, blas.Trans, -1, sub(i0, i1, k0, k1), sub(k1, i1, k0, k1), 1, sub(i0, i1, k1, i1))
			tick()
		}
	}
	return nil
}
