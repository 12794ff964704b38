package fastmath

import "math"

// mulChunk is the byte budget of the panel of B (k rows of a column chunk)
// that MulNN keeps in the L2 cache while every row of A passes over it.
const mulChunk = 192 << 10

// MulNN sets C = A·B for row-major A (m × k, stride lda), B (k × n, stride
// ldb) and C (m × n, stride ldc): C[i·ldc+j] = Σ_l A[i·lda+l]·B[l·ldb+j].
//
// It is the product behind the kernel layer's Gram and cross blocks and the
// exact KDE sums, X·Yᵀ with Yᵀ stored as B. There the inner dimension k is
// the number of features, often 5–100, and a general gemm (gonum's blocks
// of 64 and one axpy per element of A) spends most of its time reloading
// and storing C. Here each C value is a register for the whole sum: on
// amd64 with AVX2 and FMA, blocks of 4 rows × 8 columns accumulate in
// registers with fused multiply-adds over l, B is walked in column chunks
// that stay in the L2 cache, and each C value is stored once. Every value
// is the same sum in the same order, a fused multiply-add per l from zero
// (or on other machines a multiply and an add per l), wherever it lies in
// the blocking, so the result does not depend on m, n or the strides.
//
// MulNN panics when a slice is too short for its dimensions and strides.
func MulNN(c []float64, ldc int, a []float64, lda int, b []float64, ldb int, m, n, k int) {
	mulNN(c, ldc, a, lda, b, ldb, m, n, k, true)
}

// MulNNSeq is MulNN with a multiply and an add per term, each rounded (no
// fused multiply-add anywhere): every C value equals the plain loop
// s := 0; for l { s += a_il·b_lj } bit for bit, for callers whose values
// must not change with the machine (the SMO kernel matrix, whose solver
// matches LIBSVM's iteration for iteration). Nearly as fast as MulNN
// (BenchmarkMulNN: 0.9×).
func MulNNSeq(c []float64, ldc int, a []float64, lda int, b []float64, ldb int, m, n, k int) {
	mulNN(c, ldc, a, lda, b, ldb, m, n, k, false)
}

func mulNN(c []float64, ldc int, a []float64, lda int, b []float64, ldb int, m, n, k int, fused bool) {
	if m == 0 || n == 0 {
		return
	}
	if lda < k || ldb < n || ldc < n || len(a) < (m-1)*lda+k || len(c) < (m-1)*ldc+n || (k > 0 && len(b) < (k-1)*ldb+n) {
		panic("fastmath: MulNN slices too short for their dimensions")
	}
	if k == 0 {
		for i := 0; i < m; i++ {
			clear(c[i*ldc : i*ldc+n])
		}
		return
	}
	w := n
	if useAsm {
		w = max(8, min(n, mulChunk/(8*k))&^7)
	}
	for j0 := 0; j0 < n; j0 += w {
		j1 := min(j0+w, n)
		j8 := j1
		i := 0
		if useAsm {
			// Blocks of 4 rows: 8 columns at a time, then 4.
			j8 = j0 + (j1-j0)&^7
			j4 := j8 + (j1-j8)&^3
			for ; i+4 <= m; i += 4 {
				if j8 > j0 {
					if fused {
						mulNN4x8Asm(&c[i*ldc+j0], ldc, &a[i*lda], lda, &b[j0], ldb, j8-j0, k)
					} else {
						mulNNSeq4x8Asm(&c[i*ldc+j0], ldc, &a[i*lda], lda, &b[j0], ldb, j8-j0, k)
					}
				}
				if j4 > j8 {
					if fused {
						mulNN4x4Asm(&c[i*ldc+j8], ldc, &a[i*lda], lda, &b[j8], ldb, k)
					} else {
						mulNNSeq4x4Asm(&c[i*ldc+j8], ldc, &a[i*lda], lda, &b[j8], ldb, k)
					}
				}
			}
			j8 = j4
		}
		// Rows below the last block of four, and the columns after the
		// last block of eight or four (j8).
		for r := 0; r < m; r++ {
			lo := j0
			if r < i {
				lo = j8
			}
			mulRow(c[r*ldc+lo:r*ldc+j1], a[r*lda:r*lda+k], b[lo:], ldb, fused && useAsm)
		}
	}
}

// SumSquares returns Σ_l x[l]² with MulNN's arithmetic, so that it equals
// MulNN's C[i][i] for A = X and B = Xᵀ bit for bit: the squared distance
// ‖x‖² + ‖y‖² − 2xᵀy of a row to itself (or to an equal row) is then
// exactly 0, as a Gaussian kernel with a tiny bandwidth needs.
func SumSquares(x []float64) float64 {
	var s float64
	for _, v := range x {
		if useAsm {
			s = math.FMA(v, v, s)
		} else {
			s += v * v
		}
	}
	return s
}

// mulRow sets c[j] = Σ_l a[l]·b[l·ldb+j], with fused multiply-adds or
// with each product rounded (the conversion keeps the compiler from fusing
// it on machines where it otherwise would).
func mulRow(c, a, b []float64, ldb int, fused bool) {
	j0 := 0
	if useAsm && len(c) >= 16 && len(a) > 0 {
		// sixteen columns at a time in assembly, the same arithmetic
		j0 = len(c) &^ 15
		if fused {
			mulNN1x16Asm(&c[0], &a[0], &b[0], ldb, j0, len(a))
		} else {
			mulNNSeq1x16Asm(&c[0], &a[0], &b[0], ldb, j0, len(a))
		}
	}
	for j := j0; j < len(c); j++ {
		var s float64
		for l, v := range a {
			if fused {
				s = math.FMA(v, b[l*ldb+j], s)
			} else {
				s += float64(v * b[l*ldb+j])
			}
		}
		c[j] = s
	}
}
