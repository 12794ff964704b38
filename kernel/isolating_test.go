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

// TestIsolatingLargeSample: a Gaussian sample of 50,000 rows in one
// dimension at its default width (scale_scott: γ = n^(2/5)/Var ≈ 76 here)
// is not isolating: each row has thousands of neighbours within a kernel
// value of 1/2. The first version took the median over pairs of rows,
// γ·2·0.455·Var ≈ 69 > 36, and warned. The nearest neighbour of a row is
// about 1/(n·density) ≈ 10⁻⁴ away, so γ·d² ≈ 10⁻⁶; at γ = 10¹² it is
// about 10⁴ (isolating).
func TestIsolatingLargeSample(t *testing.T) {
	const n = 50000
	X := testmat.NormalSeed(n, 1, 7)
	g, err := Spec{Rule: ScaleScottRule}.Width(X, nil)
	if err != nil {
		t.Fatal(err)
	}
	if iso, med := Isolating("rbf", X, g); iso {
		t.Errorf("γ = %.4g on %d Gaussian rows: isolating (median exponent %.3g), want not", g, n, med)
	}
	if iso, med := Isolating("rbf", X, 1e12); !iso {
		t.Errorf("γ = 1e12: not isolating (median exponent %.3g), want isolating", med)
	}
}
