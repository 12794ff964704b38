package smo

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/james-bowman/sparse"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/kernel"
	"gonum.org/v1/gonum/mat"
)

// sparsify zeroes the entries of X at or below 0.3 and returns the CSR
// matrix of what is left (X is changed to the same values).
func sparsify(X *mat.Dense) *sparse.CSR {
	X.Apply(func(_, _ int, v float64) float64 {
		if v > 0.3 {
			return v
		}
		return 0
	}, X)
	return testmat.CSR(X)
}

// The kernel matrix columns and the expansion of a sparse matrix equal
// those of its dense copy for every kernel of the kernel package (the
// sparse path merges non-zeros; only the order of additions differs).
func TestSparseMatchesDense(t *testing.T) {
	X := randX(60, 7, 3)
	S := sparsify(X)
	Q := randX(9, 7, 4)
	SQ := sparsify(Q)
	coef := make([]float64, 60)
	for i := range coef {
		if i%3 != 0 {
			coef[i] = float64(i%5) - 1.5
		}
	}
	for _, k := range []kernel.Kernel{
		kernel.RBF{Gamma: 0.4}, kernel.Laplacian{Gamma: 0.3}, kernel.Linear{},
		kernel.Polynomial{Gamma: 0.5, Coef0: 1, Degree: 3}, kernel.Matern{Nu: 1.5, Length: 2},
	} {
		dense := NewKernelMatrix(k, X, nil, 2)
		sp := NewKernelMatrix(k, S, nil, 2)
		cd, cs := make([]float32, 60), make([]float32, 60)
		rows := make([]int, 60)
		for i := range rows {
			rows[i] = i
		}
		for j := 0; j < 60; j += 7 {
			dense.Column(cd, j, rows)
			sp.Column(cs, j, rows)
			for i := range cd {
				if math.Abs(float64(cd[i]-cs[i])) > 1e-6*math.Max(1, math.Abs(float64(cd[i]))) {
					t.Fatalf("%v: Q[%d,%d] sparse %g, dense %g", k, i, j, cs[i], cd[i])
				}
			}
			if math.Abs(dense.Diag(j)-sp.Diag(j)) > 1e-12 {
				t.Fatalf("%v: diag %d sparse %g, dense %g", k, j, sp.Diag(j), dense.Diag(j))
			}
		}
		ed, es := NewExpansion(k, X, coef), NewExpansion(k, S, coef)
		if es.SVPtr == nil || len(es.SV) >= len(ed.SV) {
			t.Fatalf("%v: sparse expansion kept %d values (dense %d)", k, len(es.SV), len(ed.SV))
		}
		want := ed.Eval(nil, Q)
		for name, got := range map[string][]float64{
			"sparse SV, dense x": es.Eval(nil, Q), "sparse SV, sparse x": es.Eval(nil, SQ), "dense SV, sparse x": ed.Eval(nil, SQ),
		} {
			for i := range want {
				if math.Abs(got[i]-want[i]) > 1e-9*math.Max(1, math.Abs(want[i])) {
					t.Fatalf("%v, %s: f(x_%d) = %g, want %g", k, name, i, got[i], want[i])
				}
			}
		}
	}
}

// A sparse matrix with 10^6 columns (8 non-zeros a row) is never made
// dense: building the kernel matrix, a column and an expansion allocate a
// few times its non-zeros, far below one dense row per worker (8 MB).
func TestSparseNeverDense(t *testing.T) {
	const n, d, nnz = 300, 1_000_000, 8
	rng := rand.New(rand.NewPCG(1, 1))
	b := csr.NewBuilder(d)
	for i := 0; i < n; i++ {
		ind := make([]int, nnz)
		val := make([]float64, nnz)
		for t := range ind {
			ind[t] = t*(d/nnz) + rng.IntN(d/nnz)
			val[t] = rng.NormFloat64()
		}
		if err := b.AddRow(ind, val); err != nil {
			t.Fatal(err)
		}
	}
	S := b.Build(d)
	coef := make([]float64, n)
	for i := range coef {
		coef[i] = 1
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, k := range []kernel.Kernel{kernel.RBF{Gamma: 0.1}, kernel.Polynomial{Gamma: 1, Coef0: 1, Degree: 2}} {
		q := NewKernelMatrix(k, S, nil, 1)
		col := make([]float32, n)
		rows := make([]int, n)
		for i := range rows {
			rows[i] = i
		}
		q.Column(col, 0, rows)
		NewExpansion(k, S, coef).Eval(nil, S)
	}
	runtime.ReadMemStats(&after)
	// Bound: 2 kernels × (matrix + expansion) × 16 bytes a non-zero plus
	// row arrays, well under 1 MB; 4 MB leaves room for the runtime.
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("allocated %d bytes on a %d × %d sparse matrix with %d non-zeros; it was densified", got, n, d, n*nnz)
	}
}

// A scattered sparse row gives the merge's inner products bit for bit (the
// same products in the same order, and zeros), so that the kernel matrix
// of sparse RBF rows, which scatters the column's row when the rows are
// dense enough, has the columns it had with merges.
func TestScatterEqualsMerge(t *testing.T) {
	const n, d, nnz = 60, 300, 40
	S := csr.Random(n, d, nnz, 5)
	q := NewKernelMatrix(kernel.RBF{Gamma: 0.02}, S, nil, 1)
	if !q.scatter {
		t.Fatalf("%d × %d rows of %d non-zeros are not scattered", n, d, nnz)
	}
	var a, b row
	for i := range n {
		for j := range n {
			a.setStored(&q.rows, i)
			b.setStored(&q.rows, j)
			merged := a.dot(&b)
			release := b.scatter(d)
			if got := a.dot(&b); math.Float64bits(got) != math.Float64bits(merged) && !(got == 0 && merged == 0) {
				t.Fatalf("rows %d, %d: %v scattered, %v merged", i, j, got, merged)
			}
			release()
		}
	}
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	withScatter, merged := make([]float32, n), make([]float32, n)
	for j := range n {
		q.scatter = true
		q.Column(withScatter, j, rows)
		q.scatter = false
		q.Column(merged, j, rows)
		if !slices.Equal(withScatter, merged) {
			t.Fatalf("column %d differs scattered and merged", j)
		}
	}
}
