package fastmath

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// MulNN gives every C value the sum Σ_l a_il·b_lj computed from zero in
// the order of l, one fused multiply-add per term (where the assembly
// runs; else a multiply and an add), and MulNNSeq the same sum with each
// product rounded: the same bits as those loops, for
// shapes with and without whole 4 × 8 blocks, a column chunk boundary
// (k = 40: chunks of 608 columns) and strides larger than the rows, and
// with C's padding left alone.
func TestMulNN(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 1))
	for _, s := range [][3]int{{1, 1, 1}, {3, 7, 2}, {4, 8, 1}, {5, 9, 3}, {8, 16, 10}, {13, 29, 7}, {64, 1030, 10}, {9, 1300, 40}, {6, 70, 100}, {1, 7000, 9}, {2, 48, 1}, {0, 5, 3}, {5, 0, 3}, {4, 12, 0}} {
		m, n, k := s[0], s[1], s[2]
		lda, ldb, ldc := k+3, n+5, n+2
		a := make([]float64, m*lda)
		b := make([]float64, max(k, 1)*ldb)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		for _, fused := range []bool{true, false} {
			c := make([]float64, m*ldc)
			for i := range c {
				c[i] = math.NaN()
			}
			if fused {
				MulNN(c, ldc, a, lda, b, ldb, m, n, k)
			} else {
				MulNNSeq(c, ldc, a, lda, b, ldb, m, n, k)
			}
			for i := 0; i < m; i++ {
				for j := 0; j < ldc; j++ {
					got := c[i*ldc+j]
					if j >= n {
						if !math.IsNaN(got) {
							t.Fatalf("%v: padding C[%d,%d] written", s, i, j)
						}
						continue
					}
					var want float64
					for l := 0; l < k; l++ {
						if fused && useAsm {
							want = math.FMA(a[i*lda+l], b[l*ldb+j], want)
						} else {
							want += float64(a[i*lda+l] * b[l*ldb+j])
						}
					}
					if got != want {
						t.Fatalf("%v fused=%v: C[%d,%d] = %v, want %v", s, fused, i, j, got, want)
					}
				}
			}
		}
	}
}

func TestMulNNShortSlice(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("no panic for a short C")
		}
	}()
	MulNN(make([]float64, 11), 4, make([]float64, 6), 2, make([]float64, 8), 4, 3, 4, 2)
}

// BenchmarkMulNN compares MulNN with gonum's Dgemm (NoTrans × NoTrans, the
// call it replaces) on the shapes of a Gram block: 64 rows of A against
// n = 7,000 columns, k = 10 and 100 (10_cover's and 24_mnist's widths).
func BenchmarkMulNN(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	const m, n = 64, 7000
	for _, k := range []int{10, 100} {
		a := make([]float64, m*k)
		bb := make([]float64, k*n)
		c := make([]float64, m*n)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		for i := range bb {
			bb[i] = rng.NormFloat64()
		}
		b.Run(fmt.Sprintf("MulNN/k=%d", k), func(b *testing.B) {
			for b.Loop() {
				MulNN(c, n, a, k, bb, n, m, n, k)
			}
			b.ReportMetric(float64(m*n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mvalues/s")
		})
		b.Run(fmt.Sprintf("MulNNSeq/k=%d", k), func(b *testing.B) {
			for b.Loop() {
				MulNNSeq(c, n, a, k, bb, n, m, n, k)
			}
			b.ReportMetric(float64(m*n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mvalues/s")
		})
		b.Run(fmt.Sprintf("gonum/k=%d", k), func(b *testing.B) {
			for b.Loop() {
				blas64.Gemm(blas.NoTrans, blas.NoTrans, 1,
					blas64.General{Rows: m, Cols: k, Stride: k, Data: a},
					blas64.General{Rows: k, Cols: n, Stride: n, Data: bb},
					0, blas64.General{Rows: m, Cols: n, Stride: n, Data: c})
			}
			b.ReportMetric(float64(m*n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mvalues/s")
		})
	}
}

// SumSquares(x_i) equals the diagonal of X·Xᵀ from MulNN bit for bit, for
// every width up to 40 (row counts beyond one 4-row block).
func TestSumSquaresMatchesMulNN(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	const m = 9
	for k := 1; k <= 40; k++ {
		x := make([]float64, m*k)
		for i := range x {
			x[i] = rng.NormFloat64() * math.Exp(4*rng.NormFloat64())
		}
		xt := make([]float64, k*m)
		for i := 0; i < m; i++ {
			for l := 0; l < k; l++ {
				xt[l*m+i] = x[i*k+l]
			}
		}
		c := make([]float64, m*m)
		MulNN(c, m, x, k, xt, m, m, m, k)
		for i := 0; i < m; i++ {
			if got, want := SumSquares(x[i*k:(i+1)*k]), c[i*m+i]; got != want {
				t.Fatalf("k=%d row %d: SumSquares %v, MulNN diagonal %v", k, i, got, want)
			}
		}
	}
}

// TestMulNNPar: the split product equals MulNN bit for bit on shapes that
// take each branch (rows split, columns split, too small to split) and
// leaves nothing unwritten.
func TestMulNNPar(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, sh := range [][3]int{{100, 37, 13}, {65, 3, 5}, {10, 50, 7}, {3, 3, 1}, {1, 16, 4}, {63, 15, 9}} {
		m, n, k := sh[0], sh[1], sh[2]
		a, b := make([]float64, m*k), make([]float64, k*n)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		want, got := make([]float64, m*n), make([]float64, m*n)
		for i := range got {
			got[i] = math.NaN()
		}
		MulNN(want, n, a, k, b, n, m, n, k)
		MulNNPar(got, n, a, k, b, n, m, n, k)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%d × %d × %d: C[%d] = %v, MulNN gives %v", m, n, k, i, got[i], want[i])
			}
		}
	}
}

// TestRotRows: the assembly sweeps (32 and 8 columns at a time) agree
// with the plain loop to 1e-14 on column ranges that take every branch,
// and columns outside the range are untouched.
func TestRotRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const k, ld = 50, 61
	st := make([]float64, k*ld)
	for i := range st {
		st[i] = rng.NormFloat64()
	}
	cs := make([]float64, 2*k)
	for i := 0; i < k; i++ {
		th := rng.Float64() * 2 * math.Pi
		cs[2*i], cs[2*i+1] = math.Cos(th), math.Sin(th)
	}
	for _, r := range [][4]int{{0, 61, 3, 47}, {5, 45, 0, 49}, {2, 9, 10, 11}, {7, 8, 0, 49}, {0, 32, 1, 2}} {
		c0, c1, lo, hi := r[0], r[1], r[2], r[3]
		got := append([]float64(nil), st...)
		RotRows(got, ld, c0, c1, cs, lo, hi)
		want := append([]float64(nil), st...)
		at := 0
		for i := hi - 1; i >= lo; i-- {
			c, s := cs[at], cs[at+1]
			at += 2
			for j := c0; j < c1; j++ {
				x, f := want[i*ld+j], want[(i+1)*ld+j]
				want[(i+1)*ld+j] = s*x + c*f
				want[i*ld+j] = c*x - s*f
			}
		}
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-14 {
				t.Fatalf("columns %d–%d, rows %d–%d: value %d is %v, want %v", c0, c1, lo, hi, i, got[i], want[i])
			}
		}
	}
}
