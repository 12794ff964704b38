package smo

import (
	"context"
	"fmt"
	"testing"

	"github.com/kernelad/anomaly/kernel"
)

// BenchmarkSolve is the size grid of the one-class problem (RBF, γ = 0.1,
// d = 10 Gaussian rows, Σα = νn with bounds 1, ν = 0.5 and 0.1), with the
// default 200 MB cache (which holds the whole Q up to n ≈ 7,200) and with a
// 20 MB cache that forces evictions.
func BenchmarkSolve(b *testing.B) {
	for _, n := range []int{1000, 2000, 4000, 8000} {
		X := randX(n, 10, uint64(n))
		q := NewKernelMatrix(kernel.RBF{Gamma: 0.1}, X, nil, 1)
		for _, nu := range []float64{0.1, 0.5} {
			for _, mb := range []float64{200, 20} {
				if n < 4000 && mb == 20 {
					continue
				}
				b.Run(fmt.Sprintf("n=%d/nu=%g/cache=%gMB", n, nu, mb), func(b *testing.B) {
					prob := Problem{Q: q, C: ones(n, 1), Delta: nu * float64(n)}
					var r *Result
					for i := 0; i < b.N; i++ {
						var err error
						if r, err = Solve(context.Background(), prob, Settings{CacheMB: mb}); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(r.Iterations), "iter")
					b.ReportMetric(float64(r.Entries)/float64(n), "columns")
				})
			}
		}
	}
}
