package randfeat

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/kernel"
)

// BenchmarkTransformWideCSR maps CSR rows of width 200,000 with 20
// non-zeros each to D = 64 Fourier features (one row update of length 64
// per stored entry).
func BenchmarkTransformWideCSR(b *testing.B) {
	const d, nnz, D = 200_000, 20, 64
	f := NewFourier(kernel.RBF{Gamma: 0.05}, d, D, rand.NewPCG(1, 1))
	for _, n := range []int{1000, 10000} {
		benchTransform(b, fmt.Sprintf("fourier/n=%d/d=%d/nnz=%d/D=%d", n, d, nnz, D), f, csr.Random(n, d, nnz, 2))
	}
}
