package symeig

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kernelad/anomaly/internal/testmat"
	"gonum.org/v1/gonum/mat"
)

// TestAll checks the full decomposition against gonum's EigenSym:
// eigenvalues to 1e-12·‖A‖₂, every residual ‖Az − λz‖ ≤ 1e-12·‖A‖₂ and
// ZᵀZ = I to 1e-12, on normal matrices of 1, 2, 30 and 300 rows, an RBF
// kernel matrix of 400 rows (most eigenvalues tiny and clustered), one with
// six equal eigenvalues, a diagonal one (every e = 0) and XXᵀ of rank 4
// with 60 rows (56 zero eigenvalues: splitting J relative to its own
// diagonal instead of ‖J‖ never converged there).
func TestAll(t *testing.T) {
	lam := make([]float64, 80)
	for i := range lam {
		lam[i] = math.Exp(-0.2 * float64(i))
		if i >= 3 && i < 9 {
			lam[i] = lam[3]
		}
	}
	x := testmat.Random(rand.New(rand.NewPCG(6, 6)), 60, 4, (*rand.Rand).NormFloat64)
	var lowRank mat.Dense
	lowRank.Mul(x, x.T())
	diag := mat.NewDense(50, 50, nil)
	for i := 0; i < 50; i++ {
		diag.Set(i, i, float64((i*7)%50))
	}
	for _, c := range []struct {
		name string
		a    *mat.Dense
	}{{"normal 1", normalSym(1, 3)}, {"normal 2", normalSym(2, 3)}, {"normal 30", normalSym(30, 3)}, {"normal 300", normalSym(300, 3)},
		{"rbf 400", rbfMatrix(400, 3, 0.5, 2)}, {"cluster 80", testmat.Spectrum(lam, 80)}, {"diagonal 50", diag}, {"rank 4 of 60", &lowRank}} {
		n, _ := c.a.Dims()
		want, norm := reference(t, c.a)
		vals, z, err := Reduce(c.a).All(context.Background())
		if err != nil || vals == nil {
			t.Fatalf("%s: All: %v (nil values: %v)", c.name, err, vals == nil)
		}
		var worst float64
		for i := range vals {
			worst = math.Max(worst, math.Abs(vals[i]-want[n-1-i]))
		}
		res := testmat.MaxResidual(c.a, vals, z)
		var ztz mat.Dense
		ztz.Mul(z.T(), z)
		var orth float64
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				w := 0.0
				if i == j {
					w = 1
				}
				orth = math.Max(orth, math.Abs(ztz.At(i, j)-w))
			}
		}
		t.Logf("%s: eigenvalues off by %.2g, residuals %.2g (‖A‖₂ = %.3g), ZᵀZ − I %.2g", c.name, worst/norm, res/norm, norm, orth)
		if !(worst <= 1e-12*norm) || !(res <= 1e-12*norm) || !(orth <= 1e-12) {
			t.Errorf("%s: eigenvalues off by %.3g, residuals %.3g (relative to ‖A‖₂), ZᵀZ − I %.3g", c.name, worst/norm, res/norm, orth)
		}
	}
}

// TestAllCancel: a cancelled context stops the decomposition between
// sweeps.
func TestAllCancel(t *testing.T) {
	red := Reduce(rbfMatrix(600, 3, 0.5, 4))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := red.All(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("All with a cancelled context: %v", err)
	}
}

// BenchmarkAll is the full decomposition (reduction included) against
// gonum's EigenSym on RBF kernel matrices.
func BenchmarkAll(b *testing.B) {
	for _, n := range []int{500, 1000, 2000} {
		a := rbfMatrix(n, 8, 1.0/8, 1)
		b.Run(fmt.Sprintf("symeig/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := Reduce(a).All(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("EigenSym/n=%d", n), func(b *testing.B) {
			if n > 1000 && testing.Short() {
				b.Skip("-short")
			}
			sym := mat.NewSymDense(n, mat.DenseCopyOf(a).RawMatrix().Data)
			for b.Loop() {
				var es mat.EigenSym
				es.Factorize(sym, true)
			}
		})
	}
}
