package kernel

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kernelad/anomaly/internal/testmat"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkGramRBF compares Gram (blocked, parallel, gemm) with a naive
// double loop over Eval filling the same upper triangle, d = 10.
func BenchmarkGramRBF(b *testing.B) {
	k := RBF{Gamma: 0.1}
	for _, n := range []int{500, 2000, 5000} {
		x := testmat.Uniform(n, 10, 0, rand.NewPCG(1, 1))
		g := mat.NewSymDense(n, nil)
		b.Run(fmt.Sprintf("gram/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				Gram(g, k, x)
			}
			b.ReportMetric(float64(n)*float64(n+1)/2*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
		})
		b.Run(fmt.Sprintf("naive/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				for i := 0; i < n; i++ {
					xi := x.RawRowView(i)
					for j := i; j < n; j++ {
						g.SetSym(i, j, k.Eval(xi, x.RawRowView(j)))
					}
				}
			}
			b.ReportMetric(float64(n)*float64(n+1)/2*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
		})
	}
}

// BenchmarkGramCSR is Gram on a CSR copy of 50%-sparse data, d = 10.
func BenchmarkGramCSR(b *testing.B) {
	k := RBF{Gamma: 0.1}
	for _, n := range []int{500, 2000} {
		x := testmat.CSR(testmat.Uniform(n, 10, 0.5, rand.NewPCG(1, 1)))
		g := mat.NewSymDense(n, nil)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				Gram(g, k, x)
			}
		})
	}
}
