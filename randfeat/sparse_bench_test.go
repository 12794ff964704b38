package randfeat

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/james-bowman/sparse"
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
		X := wideCSR(n, d, nnz, 2)
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
