package smo

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/james-bowman/sparse"
	"github.com/kernelad/anomaly/kernel"
)

// BenchmarkSolveWideCSR is the one-class problem (ν = 0.5) on CSR rows of
// width 200,000 with 20 non-zeros each: every kernel column is n
// sparse-sparse evaluations from the row store.
func BenchmarkSolveWideCSR(b *testing.B) {
	const d, nnz = 200_000, 20
	for _, n := range []int{1000, 4000} {
		X := wideCSR(n, d, nnz, 5)
		b.Run(fmt.Sprintf("n=%d/d=%d/nnz=%d", n, d, nnz), func(b *testing.B) {
			for b.Loop() {
				q := NewKernelMatrix(kernel.RBF{Gamma: 0.05}, X, nil, 1)
				prob := Problem{Q: q, C: ones(n, 1), Delta: 0.5 * float64(n)}
				if _, err := Solve(context.Background(), prob, Settings{}); err != nil {
					b.Fatal(err)
				}
			}
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
