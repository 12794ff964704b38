package kpca

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kernelad/anomaly/internal/testmat"
	"gonum.org/v1/gonum/mat"
)

// TestLanczosRestart fits the 20 leading eigenpairs of an 800 × 800
// matrix with evenly spaced eigenvalues 1, 1 − 1/800, …: relative gaps of
// 1/800 that the first Lanczos basis (320 vectors) does not resolve, so
// block Lanczos must restart. It checks that it did, that it converged
// without the dense fallback (blockLanczos returns nil values when it
// gives up), to the known eigenvalues within 1e-9 and with residuals
// ‖Ay − θy‖ ≤ 1e-10 (lanczosTol·λ_1). Restarting with the next block
// projected out of the shrunken basis only, instead of out of the whole
// basis first, breaks the Krylov structure; the pairs then stall at
// residuals near 1e-7 and this test fails.
func TestLanczosRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an 800 × 800 matrix of prescribed spectrum")
	}
	const n, q = 800, 20
	want := make([]float64, n)
	for i := range want {
		want[i] = 1 - float64(i)/n
	}
	a := testmat.Spectrum(want, 3)
	var last, total int
	vals, vecs, err := blockLanczos(context.Background(), a, q, eigTarget{q: q}, rand.New(rand.NewPCG(1, 1)), func(d, tt int) { last, total = d, tt })
	if err != nil {
		t.Fatal(err)
	}
	if vals == nil {
		t.Fatalf("block Lanczos gave up after %d of %d columns", last, total)
	}
	maxK := min(n/2, max(40*8, 10*q))
	t.Logf("%d columns multiplied, budget %d per basis (%d with restarts)", last, maxK, total)
	if total <= maxK {
		t.Errorf("converged without a restart (%d of %d columns): the test no longer exercises restarting", last, maxK)
	}
	for j := 0; j < q; j++ {
		if d := math.Abs(vals[j] - want[j]); d > 1e-9 {
			t.Errorf("eigenvalue %d: %.15g, want %.15g", j, vals[j], want[j])
		}
	}
	if r := testmat.MaxResidual(a, vals, vecs); r > lanczosTol*want[0]*1.01 {
		t.Errorf("residual %.3g > %.3g", r, lanczosTol*want[0])
	}
}

// TestDenseTopUpper checks denseTop above denseMax (one tridiagonal
// reduction in the matrix's own storage, eigenvectors by inverse
// iteration) on a kernel matrix of which only the upper triangle is valid,
// as in fit: the lower triangle holds NaN. Eigenvalues agree with gonum's
// EigenSym on the full matrix to 1e-12·λ_1 and with denseTop on a full
// copy exactly, the residuals are at most 1e-12·λ_1, and the upper
// triangle and the diagonal are left as they were (fit reads the diagonal
// afterwards).
func TestDenseTopUpper(t *testing.T) {
	const n, q = 400, 12
	full := gramOf(n, 5, 0.5, 11)
	ref, _, err := denseTop(context.Background(), mat.DenseCopyOf(full), eigTarget{q: q}, nil) // n > denseMax: the in-place route
	if err != nil {
		t.Fatal(err)
	}
	var es mat.EigenSym
	if !es.Factorize(symOf(full), false) {
		t.Fatal("EigenSym failed")
	}
	asc := es.Values(nil)
	up := mat.DenseCopyOf(full)
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			up.Set(i, j, math.NaN())
		}
	}
	vals, vt, err := denseTop(context.Background(), up, eigTarget{q: q}, nil)
	if err != nil {
		t.Fatal(err)
	}
	vecs := transposed(vt)
	for j := 0; j < q; j++ {
		if d := math.Abs(vals[j] - asc[n-1-j]); d > 1e-12*asc[n-1] {
			t.Errorf("eigenvalue %d: %.15g, EigenSym %.15g", j, vals[j], asc[n-1-j])
		}
		if vals[j] != ref[j] {
			t.Errorf("eigenvalue %d: %v from the upper triangle, %v from the full matrix", j, vals[j], ref[j])
		}
	}
	if r := testmat.MaxResidual(full, vals, vecs); r > 1e-12*asc[n-1] {
		t.Errorf("residual %.3g", r)
	}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			if up.At(i, j) != full.At(i, j) {
				t.Fatalf("denseTop changed the upper triangle or the diagonal at (%d, %d)", i, j)
			}
		}
	}
}
