package symeig

import (
	"context"
	"math"
	"testing"

	"github.com/kernelad/anomaly/internal/testmat"
	"gonum.org/v1/gonum/mat"
)

// TestSymTridiag checks the tridiagonal route to the Ritz pairs against
// gonum's full eigendecomposition: the same eigenvalues to 1e-12·‖T‖,
// residuals ‖Ts − λs‖ ≤ 1e-12·‖T‖ and orthonormal vectors, on random
// symmetric matrices and on one with a cluster of equal eigenvalues (where
// inverse iteration alone would return the same vector several times).
func TestSymTridiag(t *testing.T) {
	for _, c := range []struct {
		name    string
		k, m    int
		cluster bool
	}{{"random", 60, 12, false}, {"cluster", 80, 20, true}, {"tiny", 2, 2, false}, {"one", 1, 1, false}} {
		t.Run(c.name, func(t *testing.T) {
			k := c.k
			lam := make([]float64, k)
			for i := range lam {
				lam[i] = math.Exp(-0.2 * float64(i))
				if c.cluster && i >= 3 && i < 9 {
					lam[i] = lam[3] // six equal eigenvalues among the wanted
				}
			}
			tm := testmat.Spectrum(lam, uint64(k)) // T = U·diag(λ)·Uᵀ, U orthonormal
			r := Reduce(tm)
			vals := r.Values()
			if vals == nil {
				t.Fatal("values failed")
			}
			for i := range vals {
				if math.Abs(vals[i]-lam[i]) > 1e-12 {
					t.Fatalf("value %d: %v, want %v", i, vals[i], lam[i])
				}
			}
			s, _ := r.Vectors(context.Background(), vals[:c.m])
			if s == nil {
				t.Fatal("vectors failed")
			}
			var ts mat.Dense
			ts.Mul(tm, s)
			for j := 0; j < c.m; j++ {
				var res float64
				for i := 0; i < k; i++ {
					d := ts.At(i, j) - vals[j]*s.At(i, j)
					res += d * d
				}
				if math.Sqrt(res) > 1e-12 {
					t.Errorf("pair %d: residual %g", j, math.Sqrt(res))
				}
			}
			var sts mat.Dense
			sts.Mul(s.T(), s)
			for i := 0; i < c.m; i++ {
				for j := 0; j < c.m; j++ {
					want := 0.0
					if i == j {
						want = 1
					}
					if d := math.Abs(sts.At(i, j) - want); d > 1e-12 {
						t.Errorf("SᵀS[%d,%d] off by %g", i, j, d)
					}
				}
			}
		})
	}
}
