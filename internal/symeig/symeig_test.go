package symeig

import (
	"context"
	"errors"
	"fmt"
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

// TestVectorsT: the vectors as rows (Q applied from the right) equal the
// columns of Vectors to 1e-13, for one vector and for many across several
// blocks of reflectors, on an RBF matrix and a normal one.
func TestVectorsT(t *testing.T) {
	for _, a := range []*mat.Dense{rbfMatrix(150, 3, 0.5, 9), normalSym(97, 4)} {
		red := Reduce(a)
		vals := red.Values()
		n := len(vals)
		for _, m := range []int{1, 40, n} {
			z, err := red.Vectors(context.Background(), vals[:m])
			if err != nil || z == nil {
				t.Fatal(err)
			}
			zt, err := red.VectorsT(context.Background(), vals[:m])
			if err != nil || zt == nil {
				t.Fatal(err)
			}
			var worst float64
			for j := 0; j < m; j++ {
				for i := 0; i < n; i++ {
					worst = math.Max(worst, math.Abs(zt.At(j, i)-z.At(i, j)))
				}
			}
			if worst > 1e-13 {
				t.Errorf("n = %d, %d vectors: rows and columns differ by %g", n, m, worst)
			}
		}
	}
}

// TestProgress: ReduceUpperInPlaceProgress and VectorsTProgress give the
// results of ReduceUpperInPlace and VectorsT bit for bit (and
// ReduceContextProgress and VectorsProgress those of Reduce and Vectors), and report
// their steps in order, each stage ending at its total: the reduction
// one report per panel of sytrdBlock columns, the vectors one per
// vectorsReport vectors and one per block of qBlock reflectors.
func TestProgress(t *testing.T) {
	const n, m = 400, 150
	a := rbfMatrix(n, 4, 0.5, 12)
	ref, err := ReduceUpperInPlace(context.Background(), mat.DenseCopyOf(a))
	if err != nil {
		t.Fatal(err)
	}
	type rep struct{ done, total int }
	check := func(name string, reps []rep, total int) {
		t.Helper()
		if len(reps) < 2 {
			t.Fatalf("%s: %d reports", name, len(reps))
		}
		for i, r := range reps {
			if r.total != total || r.done > total || (i > 0 && r.done < reps[i-1].done) {
				t.Fatalf("%s: report %d is %d of %d after %v", name, i, r.done, r.total, reps[max(i-1, 0)])
			}
		}
		if last := reps[len(reps)-1]; last.done != total {
			t.Errorf("%s ends at %d of %d", name, last.done, total)
		}
	}
	var reduce, vectors []rep
	red, err := ReduceUpperInPlaceProgress(context.Background(), mat.DenseCopyOf(a), func(d, tt int) { reduce = append(reduce, rep{d, tt}) })
	if err != nil {
		t.Fatal(err)
	}
	check("reduce", reduce, n)
	vals, want := red.Values(), ref.Values()
	for i := range vals {
		if vals[i] != want[i] {
			t.Fatalf("eigenvalue %d: %v with progress, %v without", i, vals[i], want[i])
		}
	}
	zt, err := red.VectorsTProgress(context.Background(), vals[:m], func(d, tt int) { vectors = append(vectors, rep{d, tt}) })
	if err != nil {
		t.Fatal(err)
	}
	check("vectors", vectors, m+(n-1+qBlock-1)/qBlock)
	zr, err := ref.VectorsT(context.Background(), vals[:m])
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(zt, zr) {
		t.Error("the vectors differ with progress reports")
	}

	// The copying forms, as kernel PCA's Lanczos restart calls them.
	var creduce, cvectors []rep
	cred, err := ReduceContextProgress(context.Background(), a, func(d, tt int) { creduce = append(creduce, rep{d, tt}) })
	if err != nil {
		t.Fatal(err)
	}
	check("copying reduce", creduce, n)
	cref := Reduce(a)
	cv, cw := cred.Values(), cref.Values()
	for i := range cv {
		if cv[i] != cw[i] {
			t.Fatalf("eigenvalue %d: %v with progress, %v without (copying reduction)", i, cv[i], cw[i])
		}
	}
	z, err := cred.VectorsProgress(context.Background(), cv[:m], func(d, tt int) { cvectors = append(cvectors, rep{d, tt}) })
	if err != nil {
		t.Fatal(err)
	}
	check("copying vectors", cvectors, m+(n-1+qBlock-1)/qBlock)
	zc, err := cref.Vectors(context.Background(), cv[:m])
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(z, zc) {
		t.Error("Vectors differ with progress reports")
	}
}

// TestReduceCancelInPanel: a context already done stops the reduction
// at its first look, before the first column of the first panel, with no
// progress reported.
func TestReduceCancelInPanel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := rbfMatrix(300, 4, 0.5, 13)
	var reports int
	if _, err := ReduceUpperInPlaceProgress(ctx, a, func(int, int) { reports++ }); !errors.Is(err, context.Canceled) || reports != 0 {
		t.Errorf("a cancelled reduction returned %v after %d reports", err, reports)
	}
}
