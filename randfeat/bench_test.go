package randfeat

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/kernel"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkFourierTransform maps n = 10,000 rows of d = 9 (32_shuttle's
// width) to D = 2000 features, dense and as CSR (all entries non-zero, so
// the CSR product does the same arithmetic without BLAS), and one row at a
// time with TransformRow.
func BenchmarkFourierTransform(b *testing.B) {
	const n, d, D = 10000, 9, 2000
	x := testmat.Uniform(n, d, 0, rand.NewPCG(1, 1))
	f := NewFourier(kernel.RBF{Gamma: 1}, d, D, rand.NewPCG(1, 1))
	for name, in := range map[string]mat.Matrix{"dense": x, "csr": testmat.CSR(x)} {
		benchTransform(b, fmt.Sprintf("%s/n=%d/d=%d/D=%d", name, n, d, D), f, in)
	}
	b.Run(fmt.Sprintf("row/d=%d/D=%d", d, D), func(b *testing.B) {
		buf := make([]float64, D)
		i := 0
		for b.Loop() {
			buf = f.TransformRow(buf, x.RawRowView(i%n))
			i++
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}

// benchTransform times m.Transform of the rows of x as the sub-benchmark
// name of b and reports rows a second.
func benchTransform(b *testing.B, name string, m Map, x mat.Matrix) {
	n, _ := x.Dims()
	dst := mat.NewDense(n, m.Dim(), nil)
	b.Run(name, func(b *testing.B) {
		for b.Loop() {
			m.Transform(dst, x)
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}

// BenchmarkOrthogonalNew is the cost of drawing an ORF map (QR per block).
func BenchmarkOrthogonalNew(b *testing.B) {
	for _, d := range []int{9, 100} {
		b.Run(fmt.Sprintf("d=%d/D=2000", d), func(b *testing.B) {
			for b.Loop() {
				NewOrthogonal(kernel.RBF{Gamma: 1}, d, 2000, rand.NewPCG(1, 1))
			}
		})
	}
}

// BenchmarkNystromNew is the construction of a Nyström map on m landmarks
// of d = 9 uniform columns (RBF, γ = 1): the eigen form (NewNystrom) and
// the pivoted Cholesky form (NewNystromCholesky).
func BenchmarkNystromNew(b *testing.B) {
	const d = 9
	for _, m := range []int{500, 1000} {
		x := testmat.Uniform(m, d, 0, rand.NewPCG(1, 1))
		k := kernel.RBF{Gamma: 1}
		b.Run(fmt.Sprintf("eigen/m=%d", m), func(b *testing.B) {
			for b.Loop() {
				if _, err := NewNystrom(k, x); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("cholesky/m=%d", m), func(b *testing.B) {
			for b.Loop() {
				if _, err := NewNystromCholesky(context.Background(), k, x); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
