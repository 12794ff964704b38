package smo

import (
	"context"
	"fmt"
	"testing"

	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/kernel"
)

// BenchmarkSolveWideCSR is the one-class problem (ν = 0.5) on CSR rows of
// width 200,000 with 20 non-zeros each: every kernel column is n
// sparse-sparse evaluations from the row store.
func BenchmarkSolveWideCSR(b *testing.B) {
	const d, nnz = 200_000, 20
	for _, n := range []int{1000, 4000} {
		X := csr.Random(n, d, nnz, 5)
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
