package kpca

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kernelad/anomaly/internal/shareddata"
	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// gramOf returns the full RBF Gram matrix of n random rows in d dimensions.
func gramOf(n, d int, gamma float64, seed uint64) *mat.Dense {
	x := testmat.Random(rand.New(rand.NewPCG(seed, seed)), n, d, (*rand.Rand).Float64)
	var k mat.Dense
	kernel.Cross(&k, kernel.RBF{Gamma: gamma}, x, x)
	return &k
}

// TestLanczosMatchesDense checks block Lanczos against the full symmetric
// eigendecomposition on RBF Gram matrices (eigenvalues to 1e-9 relative to
// λ_1, eigenvectors orthonormal to 1e-10 and spanning the same subspace).
func TestLanczosMatchesDense(t *testing.T) {
	for _, c := range []struct {
		n, d, q int
		gamma   float64
	}{{300, 3, 5, 2}, {300, 10, 10, 1}, {240, 20, 30, 0.5}, {300, 2, 25, 4}} {
		k := gramOf(c.n, c.d, c.gamma, 7)
		want, _, err := denseTop(context.Background(), k, eigTarget{q: c.q}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, gvec, err := blockLanczos(context.Background(), k, c.q, eigTarget{q: c.q}, rand.New(rand.NewPCG(1, 1)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got == nil {
			// Basis budget exhausted (slowly decaying spectrum): topEigen
			// then falls back to the dense solver; check that path.
			t.Logf("%+v: Lanczos budget exhausted; checking topEigen's fallback", c)
			old := denseMax
			denseMax = 0
			var gvt *mat.Dense
			got, gvt, err = topEigen(context.Background(), k, eigTarget{q: c.q}, rand.New(rand.NewPCG(1, 1)), nil)
			gvec = transposed(gvt)
			denseMax = old
			if err != nil {
				t.Fatal(err)
			}
		}
		worst := 0.0
		for j := range want {
			worst = math.Max(worst, math.Abs(got[j]-want[j])/want[0])
		}
		var g mat.Dense
		g.Mul(gvec.T(), gvec)
		orth := 0.0
		for i := 0; i < c.q; i++ {
			for j := 0; j < c.q; j++ {
				e := g.At(i, j)
				if i == j {
					e--
				}
				orth = math.Max(orth, math.Abs(e))
			}
		}
		t.Logf("%+v: max |Δλ|/λ_1 = %.2g, ‖YᵀY − I‖_max = %.2g, λ_q/λ_1 = %.2g", c, worst, orth, want[c.q-1]/want[0])
		if worst > 1e-9 || orth > 1e-10 {
			t.Errorf("%+v: eigenvalues differ by %.3g, orthogonality %.3g", c, worst, orth)
		}
	}
}

// symMulBlock, reading only the upper triangle, equals the full product
// a·v to rounding, for odd and even n (the row pairs and the odd row) and
// block sizes with and without a remainder of four.
func TestSymMulBlock(t *testing.T) {
	for _, n := range []int{1, 2, 7, 64, 301} {
		for _, b := range []int{1, 4, 5, 8} {
			a := gramOf(n, 3, 0.7, uint64(n))
			lower := mat.DenseCopyOf(a)
			for i := 0; i < n; i++ {
				for j := 0; j < i; j++ {
					lower.Set(i, j, math.NaN()) // must not be read
				}
			}
			v := mat.NewDense(n, b, nil)
			for i := 0; i < n; i++ {
				for j := 0; j < b; j++ {
					v.Set(i, j, math.Sin(float64(i*b+j)))
				}
			}
			var want mat.Dense
			want.Mul(a, v)
			got := mat.NewDense(n, b, nil)
			if err := symMulBlock(context.Background(), got, lower, v, mat.NewDense(b, n, nil), make([]float64, 2*b*n)); err != nil {
				t.Fatal(err)
			}
			if !mat.EqualApprox(got, &want, 1e-12*float64(n)) {
				t.Errorf("n=%d b=%d: symMulBlock differs from a·v", n, b)
			}
		}
	}
}

// TestLanczosRankDeficient fits kernel PCA on 400 rows that take only five
// distinct values, so the centred kernel matrix has rank 4 and the Krylov
// blocks become numerically dependent once it is exhausted: Cholesky QR
// must hand over to Householder QR (which completes the basis with other
// directions) rather than divide by a vanishing R. With 3, 10 and 40
// components (below, above and far above the rank) the Lanczos scores
// must equal the full eigendecomposition's to 1e-9: the scores are
// squared feature-space distances on the scale of k(x, x) = 1, and above
// the rank both are round-off (1e-15).
func TestLanczosRankDeficient(t *testing.T) {
	n := 400
	x := mat.NewDense(n, 3, nil)
	for i := 0; i < n; i++ {
		k := float64(i % 5)
		x.Set(i, 0, k)
		x.Set(i, 1, k*k/3)
		x.Set(i, 2, 1)
	}
	scores := func(q, dmax int) []float64 {
		defer func(old int) { denseMax = old }(denseMax)
		denseMax = dmax
		p, err := New(Config{Components: q})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Fit(context.Background(), x); err != nil {
			t.Fatalf("q=%d denseMax=%d: %v", q, dmax, err)
		}
		s, err := p.Score(nil, x)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	qs := []int{3, 10, 40}
	if raceOn { // the dense references are slow under -race: the case above the rank only
		qs = []int{10}
	}
	for _, q := range qs {
		lanczos, dense := scores(q, 0), scores(q, n)
		for i := range dense {
			if math.IsNaN(lanczos[i]) || !(math.Abs(lanczos[i]-dense[i]) <= 1e-9) {
				t.Fatalf("q=%d row %d: Lanczos %v, dense %v", q, i, lanczos[i], dense[i])
			}
		}
	}
}

// TestLanczosBudgetSmallQ guards the basis budget of blockLanczos with a
// component count: on the 5,322 training rows of 24_mnist (seed-1 ADBench
// split, RBF, gamma = scale) nine components need 104 Lanczos vectors.
// With a budget of 12 blocks (96 vectors) the solver gave up and the fit
// fell back to the full eigendecomposition, minutes of work at that size;
// it must converge within the budget (without restarting, which would
// also rescue it now, at a cost). Skipped without the shared data and
// under -race (a 5,322² kernel matrix).
func TestLanczosBudgetSmallQ(t *testing.T) {
	if raceOn {
		t.Skip("a 5,322 × 5,322 kernel matrix: skipped under -race for time")
	}
	train, _ := shareddata.ADBenchSplit(t, "24_mnist", 1)
	x := mat.DenseCopyOf(train.X)
	n, d := x.Dims()
	var sum, sq float64
	for _, v := range x.RawMatrix().Data {
		sum += v
		sq += v * v
	}
	mean := sum / float64(n*d)
	gamma := 1 / (float64(d) * (sq/float64(n*d) - mean*mean))
	var k mat.Dense
	kernel.Cross(&k, kernel.RBF{Gamma: gamma}, x, x)
	raw := blas64.Symmetric{N: n, Stride: n, Data: k.RawMatrix().Data, Uplo: blas.Upper}
	rowMean, grand, err := upperRowMeans(context.Background(), raw)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := centreUpper(context.Background(), raw, rowMean, grand); err != nil {
		t.Fatal(err)
	}
	var reached, budget int
	vals, _, err := blockLanczos(context.Background(), &k, 9, eigTarget{q: 9}, rand.New(rand.NewPCG(0, 0)), func(done, total int) { reached, budget = done, total })
	if err != nil {
		t.Fatal(err)
	}
	if vals == nil {
		t.Fatalf("nine components: block Lanczos gave up after %d vectors", reached)
	}
	if budget != min(n/2, 40*8) {
		t.Errorf("nine components needed a restart (%d of %d vectors)", reached, budget)
	}
	t.Logf("nine components converged with %d of %d vectors", reached, budget)
}

// TestGrowBasis checks that widening the basis's row stride in place
// keeps every value of the columns in use at its (row, column).
func TestGrowBasis(t *testing.T) {
	const n, k, from, to = 37, 5, 7, 12
	data := make([]float64, n*to)
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			data[i*from+j] = float64(1000*i + j)
		}
	}
	g := growBasis(data, n, k, from, to)
	if r, c := g.Dims(); r != n || c != to {
		t.Fatalf("dims %d × %d, want %d × %d", r, c, n, to)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			if got, want := g.At(i, j), float64(1000*i+j); got != want {
				t.Fatalf("(%d, %d) = %v, want %v", i, j, got, want)
			}
		}
	}
}
