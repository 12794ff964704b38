package fastmath

import "github.com/kernelad/anomaly/internal/parallel"

// MulNNPar is MulNN with the rows of C (or, when there are fewer than 64,
// its columns in multiples of eight; below 16 columns, nothing) split
// between the cores. Each value is the same sum as MulNN's, so the result
// does not depend on the split.
func MulNNPar(c []float64, ldc int, a []float64, lda int, b []float64, ldb int, m, n, k int) {
	if m < 64 && n < 16 {
		MulNN(c, ldc, a, lda, b, ldb, m, n, k)
		return
	}
	if m >= 64 {
		parallel.ForRanges(m/4, 8, func(lo, hi int) {
			lo, hi = 4*lo, 4*hi
			if hi == m/4*4 {
				hi = m
			}
			MulNN(c[lo*ldc:], ldc, a[lo*lda:], lda, b, ldb, hi-lo, n, k)
		})
		return
	}
	parallel.ForRanges(n/8, 4, func(lo, hi int) {
		lo, hi = 8*lo, 8*hi
		if hi == n/8*8 {
			hi = n
		}
		MulNN(c[lo:], ldc, a, lda, b[lo:], ldb, m, hi-lo, k)
	})
}
