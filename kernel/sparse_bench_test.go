package kernel

import (
	"fmt"
	"testing"

	"github.com/kernelad/anomaly/internal/csr"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkWideCSR is the kernel between sparse rows of width 200,000 with
// 20 non-zeros each: a whole Gram matrix (n(n+1)/2 sparse-sparse
// evaluations) and one kernel row of a dense query against the CSR rows.
func BenchmarkWideCSR(b *testing.B) {
	const d, nnz = 200_000, 20
	k := RBF{Gamma: 0.05}
	for _, n := range []int{500, 2000} {
		X := csr.Random(n, d, nnz, 3)
		g := mat.NewSymDense(n, nil)
		b.Run(fmt.Sprintf("gram/n=%d/d=%d/nnz=%d", n, d, nnz), func(b *testing.B) {
			for b.Loop() {
				Gram(g, k, X)
			}
			b.ReportMetric(float64(n)*float64(n+1)/2*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
		})
	}
	X := csr.Random(10000, d, nnz, 4)
	x := make([]float64, d)
	for j := 0; j < d; j += 1000 {
		x[j] = 1
	}
	dst := make([]float64, 10000)
	b.Run(fmt.Sprintf("row/n=10000/d=%d/nnz=%d", d, nnz), func(b *testing.B) {
		for b.Loop() {
			Row(dst, k, x, X)
		}
		b.ReportMetric(float64(10000*b.N)/b.Elapsed().Seconds(), "entries/s")
	})
}
