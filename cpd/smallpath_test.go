package cpd

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kernelad/anomaly/internal/testmat"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// TestSmallPathsMatchGeneral runs CP-ALS with the small-problem paths
// (plain-loop sweep products, inline Cholesky, inverse-iteration svd init)
// and with all of them turned off (Gemm, LAPACK potrf/potrs, syev) on the
// same tensors, and requires the same number of sweeps and the same
// factors up to rounding: they are the same algorithm and stopping rule.
// The shapes include the 12×10×8 tensors of the stm scaling benchmark and
// the 125×45 matrices of cpals_ref.py's problem (b).
func TestSmallPathsMatchGeneral(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(21, 22))
	for _, c := range []struct {
		shape []int
		rank  int
		init  Init
	}{
		{[]int{12, 10, 8}, 1, SVD},
		{[]int{12, 10, 8}, 2, SVD},
		{[]int{12, 10, 8}, 3, SVD},
		{[]int{125, 45}, 2, SVD},
		{[]int{3, 4, 2, 5}, 2, SVD},
		{[]int{12, 10, 8}, 2, Random},
		{[]int{6, 7, 8}, 9, Random}, // R > smallRank: LAPACK solve in both
	} {
		t.Run(fmt.Sprintf("%v/rank%d/%v", c.shape, c.rank, c.init), func(t *testing.T) {
			cfg, err := Config{Rank: c.rank, Init: c.init}.check(c.shape)
			if err != nil {
				t.Fatal(err)
			}
			fast := newWorkspace(c.shape, c.rank, false)
			ref := newWorkspace(c.shape, c.rank, false)
			ref.small, ref.smallChol, ref.smallEig = false, false, false
			worst, sameIter := 0.0, 0
			const trials = 40
			for trial := range trials {
				// Planted tensors of the fitted rank with 1% noise; every
				// fourth is pure noise (flat spectrum, slow convergence).
				// (Over-factored fits, rank above the planted one, are
				// ill-conditioned: there ALS itself amplifies rounding.)
				noise := 0.01
				if trial%4 == 3 {
					noise = 100
				}
				x, _, _ := planted(rng, c.shape, c.rank, noise)
				seed := uint64(trial)
				kf, err := fast.decompose(ctx, x.Data(), cfg, rand.New(rand.NewPCG(seed, 1)))
				if err != nil {
					t.Fatal(err)
				}
				kr, err := ref.decompose(ctx, x.Data(), cfg, rand.New(rand.NewPCG(seed, 1)))
				if err != nil {
					t.Fatal(err)
				}
				if kf.Iter == kr.Iter {
					sameIter++
				}
				d := math.Abs(kf.RelErr - kr.RelErr)
				for r := range kf.Weights {
					d = max(d, math.Abs(kf.Weights[r]-kr.Weights[r])/kr.Weights[0])
				}
				for n := range kf.Factors {
					var diff mat.Dense
					diff.Sub(kf.Factors[n], kr.Factors[n])
					d = max(d, mat.Norm(&diff, math.Inf(1)))
				}
				// Converged planted problems must agree closely; the
				// noise tensors that hit MaxIter only as well as ALS's
				// own sensitivity allows, so they are reported, not held
				// to the bound.
				if kf.Converged && kr.Converged && kf.Iter == kr.Iter && noise < 1 {
					worst = max(worst, d)
				}
			}
			t.Logf("same sweep count %d/%d; worst difference on planted tensors %.2g", sameIter, trials, worst)
			if worst > 1e-9 {
				t.Errorf("fast and general paths differ by %.2g (want rounding, ≤ 1e-9)", worst)
			}
			if sameIter < trials*9/10 {
				t.Errorf("sweep counts agree on %d of %d tensors only", sameIter, trials)
			}
		})
	}
}

// TestSmallEigen checks inverse iteration on tiny Gram matrices against
// syev: on a clear gap it must succeed with vectors equal to syev's up to
// sign and rounding; on a cluster at the wanted eigenvalues (a repeated
// eigenvalue, or rank below k) it must give up and restore the matrix.
func TestSmallEigen(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 31))
	for _, c := range []struct {
		name   string
		n, k   int
		scales []float64 // singular values of the planted part
		noise  float64
		wantOK bool
	}{
		{"rank2+noise n10", 10, 2, []float64{3, 1}, 0.01, true},
		{"rank2+noise n8", 8, 2, []float64{3, 1}, 0.01, true},
		{"rank3+noise n12", 12, 3, []float64{5, 2, 1}, 0.01, true},
		{"rank1 k1 n12", 12, 1, []float64{1}, 0.01, true},
		{"wishart n10", 10, 2, nil, 1, true},
		{"equal top pair", 10, 2, []float64{2, 2}, 0, false},
		{"rank1 k2", 10, 2, []float64{1}, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := 4 * c.n
			x := mat.NewDense(c.n, m, nil)
			// Orthonormal planted directions, so that equal scales give an
			// exactly repeated eigenvalue.
			if len(c.scales) > 0 {
				var qa, qb mat.QR
				a := testmat.Random(rng, c.n, len(c.scales), (*rand.Rand).NormFloat64)
				b := testmat.Random(rng, m, len(c.scales), (*rand.Rand).NormFloat64)
				qa.Factorize(a)
				qb.Factorize(b)
				var ua, ub mat.Dense
				qa.QTo(&ua)
				qb.QTo(&ub)
				for r, s := range c.scales {
					x.RankOne(x, s, ua.ColView(r), ub.ColView(r))
				}
			}
			g := noisyGram(rng, x, c.noise)
			orig := mat.NewSymDense(c.n, nil)
			orig.CopySym(g)
			var s eigScratch
			s.ensure(c.n)
			out := make([]float64, c.n*c.k)
			ok := s.smallEigen(g.RawSymmetric(), c.k, out)
			if ok != c.wantOK {
				t.Fatalf("smallEigen reported %v, want %v", ok, c.wantOK)
			}
			if !ok {
				if !mat.EqualApprox(g, orig, 0) {
					t.Error("the matrix was not restored after giving up")
				}
				return
			}
			ref := make([]float64, c.n*c.n)
			copy(ref, orig.RawSymmetric().Data)
			w := make([]float64, c.n)
			work := make([]float64, 1)
			rs := blas64.Symmetric{Uplo: blas.Upper, N: c.n, Stride: c.n, Data: ref}
			lapack64.Syev(lapack.EVCompute, rs, w, work, -1)
			work = make([]float64, int(work[0]))
			lapack64.Syev(lapack.EVCompute, rs, w, work, len(work))
			for r := range c.k {
				dot := 0.0
				for i := range c.n {
					dot += out[i*c.k+r] * ref[i*c.n+c.n-1-r]
				}
				if e := math.Abs(math.Abs(dot) - 1); e > 1e-12 {
					t.Errorf("vector %d: |cos| with syev's differs from 1 by %.2g", r, e)
				}
			}
		})
	}
}

// TestTSmall checks the plain-loop product Tᵀ = A_{N−1}ᵀ (X as P×L)ᵀ
// against the Gemm it replaces.
func TestTSmall(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 41))
	for _, shape := range [][]int{{12, 10, 8}, {125, 45}, {3, 4, 2, 5}} {
		for _, R := range []int{1, 2, 5} {
			w := newWorkspace(shape, R, false)
			data := make([]float64, w.P*w.L)
			for i := range data {
				data[i] = rng.NormFloat64()
			}
			for i := range w.factors[w.N-1] {
				w.factors[w.N-1][i] = rng.NormFloat64()
			}
			P, L := w.P, w.L
			transpose(blas64.General{Rows: L, Cols: P, Stride: P, Data: w.xt}, blas64.General{Rows: P, Cols: L, Stride: L, Data: data})
			w.tSmall()
			got := append([]float64(nil), w.tt[:R*P]...)
			at := blas64.General{Rows: R, Cols: L, Stride: L, Data: w.at}
			transpose(at, w.factor(w.N-1))
			blas64Gemm(at, blas64.General{Rows: P, Cols: L, Stride: L, Data: data}, w.tt, P)
			for i, v := range got {
				if math.Abs(v-w.tt[i]) > 1e-12*(1+math.Abs(v)) {
					t.Fatalf("%v rank %d: Tᵀ entry %d = %v, Gemm gives %v", shape, R, i, v, w.tt[i])
				}
			}
		}
	}
}

// TestTridiagonal checks that the plain-loop Householder reduction keeps
// the spectrum: dsterf on its output gives syev's eigenvalues to rounding.
func TestTridiagonal(t *testing.T) {
	rng := rand.New(rand.NewPCG(50, 51))
	for _, n := range []int{1, 2, 3, 5, 10, 32} {
		a := make([]float64, n*n)
		for i := range n {
			for j := i; j < n; j++ {
				v := rng.NormFloat64()
				a[i*n+j], a[j*n+i] = v, v
			}
		}
		want := make([]float64, n)
		work := make([]float64, 1)
		sym := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: append([]float64(nil), a...)}
		lapack64.Syev(lapack.EVNone, sym, want, work, -1)
		work = make([]float64, int(work[0]))
		lapack64.Syev(lapack.EVNone, sym, want, work, len(work))
		d, e, p := make([]float64, n), make([]float64, n), make([]float64, n)
		tridiagonal(a, n, d, e, p)
		if !(gonum.Implementation{}).Dsterf(n, d, e) {
			t.Fatalf("n %d: dsterf failed", n)
		}
		for i := range n {
			if math.Abs(d[i]-want[i]) > 1e-13*float64(n) {
				t.Errorf("n %d: eigenvalue %d = %v, syev gives %v", n, i, d[i], want[i])
			}
		}
	}
}
