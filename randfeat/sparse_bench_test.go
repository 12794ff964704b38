package randfeat

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/kernel"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkTransformWideCSR maps CSR rows of width 200,000 with 20
// non-zeros each to D = 64 Fourier features (one row update of length 64
// per stored entry), and to a Nyström map on 100 landmark rows of the same
// matrix (kernel rows between sparse rows).
func BenchmarkTransformWideCSR(b *testing.B) {
	const d, nnz, D = 200_000, 20, 64
	for _, n := range []int{1000, 10000} {
		X := csr.Random(n, d, nnz, 2)
		f := NewFourier(kernel.RBF{Gamma: 0.05}, d, D, rand.NewPCG(1, 1))
		dst := mat.NewDense(n, D, nil)
		b.Run(fmt.Sprintf("fourier/n=%d/d=%d/nnz=%d/D=%d", n, d, nnz, D), func(b *testing.B) {
			for b.Loop() {
				f.Transform(dst, X)
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
