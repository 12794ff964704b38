package kernel

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkWideCSR is the kernel between sparse rows of width 200,000 with
// 20 non-zeros each: a whole Gram matrix (n(n+1)/2 sparse-sparse
// evaluations) and one kernel row of a dense query against the CSR rows.
func BenchmarkWideCSR(b *testing.B) {
	const d, nnz = 200_000, 20
	k := RBF{Gamma: 0.05}
	for _, n := range []int{500, 2000} {
		X := wideCSR(n, d, nnz, 3)
		g := mat.NewSymDense(n, nil)
		b.Run(fmt.Sprintf("gram/n=%d/d=%d/nnz=%d", n, d, nnz), func(b *testing.B) {
			for b.Loop() {
				Gram(g, k, X)
			}
			b.ReportMetric(float64(n)*float64(n+1)/2*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
		})
	}
	X := wideCSR(10000, d, nnz, 4)
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
