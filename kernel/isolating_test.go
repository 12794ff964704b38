package kernel

import (
	"math"
	"testing"

	"github.com/kernelad/anomaly/internal/testmat"
	"gonum.org/v1/gonum/mat"
)

// TestIsolating: rows 0, 1, …, 9 on a line are 1 apart, so every
// consecutive pair has squared (and L1) distance 1 and the median exponent
// is γ itself: isolating exactly when γ > ln 2⁵² = 36.04 (the bound from
// float64's precision), for rbf and laplacian, never for poly or linear;
// the sparse form of the rows gives the same answer.
func TestIsolating(t *testing.T) {
	X := mat.NewDense(10, 2, nil)
	for i := range 10 {
		X.Set(i, 0, float64(i))
	}
	bound := 52 * math.Ln2
	for _, kind := range []string{"", "rbf", "laplacian"} {
		for _, c := range []struct {
			gamma float64
			want  bool
		}{{36, false}, {37, true}, {1e300, true}, {1e-300, false}} {
			for _, in := range []mat.Matrix{X, testmat.CSR(X)} {
				got, med := Isolating(kind, in, c.gamma)
				if got != c.want || med != c.gamma {
					t.Errorf("%q at γ = %v (%T): %v with median exponent %v, want %v with %v (bound %.4f)", kind, c.gamma, in, got, med, c.want, c.gamma, bound)
				}
			}
		}
	}
	for _, kind := range []string{"poly", "linear"} {
		if got, _ := Isolating(kind, X, 1e300); got {
			t.Errorf("%s: isolating, want never", kind)
		}
	}
	if got, _ := Isolating("rbf", X.Slice(0, 1, 0, 2), 1e300); got {
		t.Error("one row: isolating, want not")
	}
}
