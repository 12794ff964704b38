package symeig

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestSytrdLower checks the blocked reduction (through Reduce, which
// reads the lower triangle: the upper one holds NaN) on symmetric matrices
// of standard normal entries of 30 rows (unblocked only), 100, 300 and 700
// (blocked panels, from 300 the symmetric product split four ways, partial
// tiles)
// and on an RBF kernel matrix of 700 rows (fast-decaying spectrum): its
// eigenvalues equal gonum's EigenSym's to 1e-12·‖A‖₂, and the
// eigenvectors of ten of them, through the stored reflectors (Dormqr),
// have residuals ‖Az − λz‖ ≤ 1e-12·‖A‖₂. (The tridiagonal entries
// themselves are not compared with gonum's Dsytrd: a different rounding
// of the early reflectors rotates the later ones, and d and e moved by
// 1e-10 relative where the eigenvalues agreed to 1e-14.)
func TestSytrdLower(t *testing.T) {
	for _, c := range []struct {
		name string
		a    *mat.Dense
	}{{"normal 30", normalSym(30, 1)}, {"normal 100", normalSym(100, 1)}, {"normal 300", normalSym(300, 1)}, {"normal 700", normalSym(700, 1)}, {"rbf 700", rbfMatrix(700, 4, 0.7, 5)}} {
		n, _ := c.a.Dims()
		want, norm := reference(t, c.a)
		up := mat.DenseCopyOf(c.a)
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				up.Set(i, j, math.NaN())
			}
		}
		red := Reduce(up)
		got := red.Values()
		worst := 0.0
		for i := range got {
			worst = math.Max(worst, math.Abs(got[i]-want[n-1-i]))
		}
		some := []float64{got[0], got[1], got[2], got[n/3], got[n/2], got[n/2+1], got[2*n/3], got[n-3], got[n-2], got[n-1]}
		res := testmat.MaxResidual(c.a, some, mustVectors(t, red, some))
		t.Logf("%s: eigenvalues off by %.2g, residuals %.2g (‖A‖₂ = %.3g)", c.name, worst/norm, res/norm, norm)
		if !(worst <= 1e-12*norm) || !(res <= 1e-12*norm) {
			t.Errorf("%s: eigenvalues off by %.3g, residuals %.3g, relative to ‖A‖₂", c.name, worst/norm, res/norm)
		}
	}
}

// reference returns gonum's EigenSym eigenvalues of the symmetric a
// (ascending) and ‖a‖₂.
func reference(t *testing.T, a *mat.Dense) ([]float64, float64) {
	t.Helper()
	n, _ := a.Dims()
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(n, mat.DenseCopyOf(a).RawMatrix().Data), false) {
		t.Fatal("EigenSym failed")
	}
	want := es.Values(nil)
	return want, math.Max(math.Abs(want[0]), math.Abs(want[n-1]))
}

// normalSym returns a symmetric n × n matrix of standard normal entries
// drawn from PCG(n, seed).
func normalSym(n int, seed uint64) *mat.Dense {
	a := testmat.Random(rand.New(rand.NewPCG(uint64(n), seed)), n, n, (*rand.Rand).NormFloat64)
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			a.Set(j, i, a.At(i, j))
		}
	}
	return a
}

// rbfMatrix returns the RBF kernel matrix of n uniform rows in d
// dimensions (a fast-decaying spectrum).
func rbfMatrix(n, d int, gamma float64, seed uint64) *mat.Dense {
	x := testmat.Random(rand.New(rand.NewPCG(seed, seed)), n, d, (*rand.Rand).Float64)
	var k mat.Dense
	kernel.Cross(&k, kernel.RBF{Gamma: gamma}, x, x)
	return &k
}

// mustVectors returns red.Vectors(vals) and fails the test when inverse
// iteration breaks down.
func mustVectors(t *testing.T, red *Tridiag, vals []float64) *mat.Dense {
	t.Helper()
	z, err := red.Vectors(context.Background(), vals)
	if z == nil || err != nil {
		t.Fatalf("vectors: %v (nil: %v)", err, z == nil)
	}
	return z
}
