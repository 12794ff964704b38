package randfeat

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/kernel"
)

// innerProducts returns Z Zᵀ for the features Z of the rows of Y.
func innerProducts(ny *Nystrom, Y mat.Matrix) *mat.Dense {
	var z, zz mat.Dense
	ny.Transform(&z, Y)
	zz.Mul(&z, z.T())
	return &zz
}

// TestNystromCholeskyMatchesEigen: the Cholesky form's inner products
// k_r(x)ᵀ K_rr⁻¹ k_r(y) equal the eigen form's k_m(x)ᵀ K_mm⁺ k_m(y) to
// 1e-10 on landmarks whose Gram matrix is well conditioned (200 of them,
// so that the factorisation runs three full panels and a partial one),
// and when a quarter of the landmarks repeat others (K_mm of rank 150:
// the Cholesky form keeps 150 landmarks, the eigen form 150 eigenvalues).
// On the landmarks themselves both reproduce K.
func TestNystromCholeskyMatchesEigen(t *testing.T) {
	x := testmat.Uniform(200, 5, 0, rand.NewPCG(7, 3))
	dup := mat.NewDense(200, 5, nil)
	dup.Slice(0, 150, 0, 5).(*mat.Dense).Copy(x.Slice(0, 150, 0, 5))
	for i := 150; i < 200; i++ {
		dup.SetRow(i, x.RawRowView((i*37)%150))
	}
	y := testmat.Uniform(60, 5, 0, rand.NewPCG(8, 3))
	k := kernel.RBF{Gamma: 6}
	for _, tc := range []struct {
		name string
		land *mat.Dense
		rank int
	}{
		{"well conditioned", x, 200},
		{"duplicate landmarks", dup, 150},
	} {
		eig, err := NewNystrom(k, tc.land)
		if err != nil {
			t.Fatal(err)
		}
		ch, err := NewNystromCholesky(context.Background(), k, tc.land)
		if err != nil {
			t.Fatal(err)
		}
		if ch.Rank() != tc.rank || ch.Dim() != tc.rank || eig.Rank() != tc.rank {
			t.Errorf("%s: Cholesky rank %d (dim %d), eigen rank %d, want %d", tc.name, ch.Rank(), ch.Dim(), eig.Rank(), tc.rank)
		}
		if tc.rank == 200 {
			var K mat.SymDense
			kernel.Gram(&K, k, tc.land)
			var es mat.EigenSym
			es.Factorize(&K, false)
			v := es.Values(nil)
			t.Logf("%s: condition number of K_mm %.3g", tc.name, v[len(v)-1]/v[0])
		}
		if e := testmat.MaxAbsDiffMat(innerProducts(ch, y), innerProducts(eig, y)); e > 1e-10 {
			t.Errorf("%s: max |Z_chol Z_cholᵀ − Z_eig Z_eigᵀ| = %g", tc.name, e)
		}
		var K mat.SymDense
		kernel.Gram(&K, k, tc.land)
		if e := testmat.MaxAbsDiffMat(innerProducts(ch, tc.land), &K); e > 1e-10 {
			t.Errorf("%s: on the landmarks max |ZZᵀ − K| = %g", tc.name, e)
		}
	}
}

// TestNystromCholeskyLowRank: a linear kernel on 4 columns has rank 4;
// the factorisation stops there and the map is still exact.
func TestNystromCholeskyLowRank(t *testing.T) {
	x := testmat.Uniform(90, 4, 0, rand.NewPCG(9, 3))
	ch, err := NewNystromCholesky(context.Background(), kernel.Linear{}, x)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Rank() != 4 {
		t.Errorf("rank %d, want 4", ch.Rank())
	}
	var K mat.SymDense
	kernel.Gram(&K, kernel.Linear{}, x)
	if e := testmat.MaxAbsDiffMat(innerProducts(ch, x), &K); e > 1e-10 {
		t.Errorf("max |ZZᵀ − K| = %g", e)
	}
}

// TestNystromCholeskyPaths: Transform (blocked solves on every core),
// TransformRow and FromKernelRow on the kernel values agree; Weights
// gives ⟨z(y), w⟩ = k_r(y)ᵀα; a restored map transforms as the original;
// an invalid factor is an error.
func TestNystromCholeskyPaths(t *testing.T) {
	x := testmat.Uniform(150, 3, 0, rand.NewPCG(10, 3))
	k := kernel.RBF{Gamma: 3}
	ch, err := NewNystromCholesky(context.Background(), k, x)
	if err != nil {
		t.Fatal(err)
	}
	r := ch.Dim()
	y := testmat.Uniform(70, 3, 0, rand.NewPCG(11, 3))
	var z mat.Dense
	ch.Transform(&z, y)
	w := make([]float64, r)
	for i := range w {
		w[i] = math.Sin(float64(i))
	}
	alpha := make([]float64, r)
	ch.Weights(alpha, w)
	kv, zr, zk := make([]float64, r), make([]float64, r), make([]float64, r)
	for i := 0; i < 70; i++ {
		ch.TransformRow(zr, y.RawRowView(i))
		kernel.Row(kv, k, y.RawRowView(i), ch.Landmarks)
		ch.FromKernelRow(zk, kv)
		for j := 0; j < r; j++ {
			if d := math.Abs(zr[j] - z.At(i, j)); d > 1e-9*max(1, math.Abs(zr[j])) {
				t.Fatalf("row %d feature %d: TransformRow %g, Transform %g", i, j, zr[j], z.At(i, j))
			}
		}
		if !floats.Equal(zr, zk) {
			t.Fatalf("row %d: TransformRow and FromKernelRow differ", i)
		}
		if a, b := floats.Dot(zr, w), floats.Dot(kv, alpha); math.Abs(a-b) > 1e-9*max(1, math.Abs(a)) {
			t.Errorf("row %d: ⟨z, w⟩ = %g, k·α = %g", i, a, b)
		}
	}
	back, err := RestoreNystromCholesky(k, ch.Landmarks, ch.Factor)
	if err != nil {
		t.Fatal(err)
	}
	var zb mat.Dense
	back.Transform(&zb, y)
	if !mat.Equal(&z, &zb) {
		t.Error("restored map differs")
	}
	low := mat.DenseCopyOf(ch.Factor)
	low.Set(5, 2, 0.1)
	neg := mat.DenseCopyOf(ch.Factor)
	neg.Set(3, 3, -1)
	for name, f := range map[string]*mat.Dense{"wrong size": mat.NewDense(r-1, r-1, nil), "below diagonal": low, "negative diagonal": neg} {
		if _, err := RestoreNystromCholesky(k, ch.Landmarks, f); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
