package expose

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kernelad/anomaly/internal/csr"
)

// BenchmarkSparseFitScore is a batch fit and score of a 1,000 × 200,000 CSR
// matrix with 20 non-zeros per row (D = 64 features, so the frequencies are
// 64 × 200,000), and of 10,000 rows of the same width.
func BenchmarkSparseFitScore(b *testing.B) {
	const d, nnz = 200_000, 20
	for _, n := range []int{1000, 10000} {
		X := csr.Random(n, d, nnz, 1)
		b.Run(fmt.Sprintf("n=%d/d=%d/nnz=%d/D=64", n, d, nnz), func(b *testing.B) {
			for b.Loop() {
				det := mustNew(b, Config{Map: RFF, Features: 64, Src: rand.NewPCG(1, 1)})
				if err := det.Fit(context.Background(), X); err != nil {
					b.Fatal(err)
				}
				if _, err := det.Score(nil, X); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
