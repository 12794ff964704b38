package expose

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/james-bowman/sparse"
)

// BenchmarkSparseFitScore is a batch fit and score of a 1,000 × 200,000 CSR
// matrix with 20 non-zeros per row (D = 64 features, so the frequencies are
// 64 × 200,000), and of 10,000 rows of the same width.
func BenchmarkSparseFitScore(b *testing.B) {
	const d, nnz = 200_000, 20
	for _, n := range []int{1000, 10000} {
		X := wideCSR(n, d, nnz, 1)
		b.Run(fmt.Sprintf("n=%d/d=%d/nnz=%d/D=64", n, d, nnz), func(b *testing.B) {
			for b.Loop() {
				det := mustNew(b, Config{Features: 64, Src: rand.NewPCG(1, 1)})
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

// wideCSR is an n × d CSR matrix with nnz distinct random columns per row
// (values N(0, 1)), built straight from its arrays: the shape of bag-of-words
// and one-hot data that the sparse paths exist for.
func wideCSR(n, d, nnz int, seed uint64) *sparse.CSR {
	rng := rand.New(rand.NewPCG(seed, seed))
	indptr := make([]int, n+1)
	ind := make([]int, 0, n*nnz)
	val := make([]float64, 0, n*nnz)
	for i := 0; i < n; i++ {
		row := map[int]bool{}
		for len(row) < nnz {
			row[rng.IntN(d)] = true
		}
		start := len(ind)
		for j := range row {
			ind = append(ind, j)
		}
		slices.Sort(ind[start:])
		for range row {
			val = append(val, rng.NormFloat64())
		}
		indptr[i+1] = len(ind)
	}
	return sparse.NewCSR(n, d, indptr, ind, val)
}
