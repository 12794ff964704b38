package expose

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/james-bowman/sparse"
	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/scale"
	"gonum.org/v1/gonum/floats"
)

// Issue 2, must-show 6: a LIBSVM file (read into CSR) and a CSV file with
// the same values (read dense) give the same scores to 1e-12, for both
// solvers.
func TestLIBSVMFileEqualsDenseCopy(t *testing.T) {
	const n, d = 400, 30
	rng := rand.New(rand.NewPCG(11, 11))
	var lib, csv strings.Builder
	for j := 0; j < d; j++ {
		fmt.Fprintf(&csv, "f%d,", j+1)
	}
	csv.WriteString("label\n")
	for i := 0; i < n; i++ {
		label := 0
		if i%10 == 0 {
			label = 1
		}
		fmt.Fprintf(&lib, "%d", label)
		for j := 0; j < d; j++ {
			v := 0.0
			if rng.Float64() < 0.15 { // about 85% zeros
				v = rng.NormFloat64()
				fmt.Fprintf(&lib, " %d:%.17g", j+1, v)
			}
			fmt.Fprintf(&csv, "%.17g,", v)
		}
		fmt.Fprintf(&lib, "\n")
		fmt.Fprintf(&csv, "%d\n", label)
	}
	dir := t.TempDir()
	lp, cp := filepath.Join(dir, "x.libsvm"), filepath.Join(dir, "x.csv")
	if err := os.WriteFile(lp, []byte(lib.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cp, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sp, err := dataset.Load(lp, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	de, err := dataset.Load(cp, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := sp.X.(*sparse.CSR); !ok {
		t.Fatalf("LIBSVM file loaded as %T, want *sparse.CSR", sp.X)
	}
	for _, solver := range []string{Batch, SGD} {
		a := mustNew(t, Config{Solver: solver, Iterations: 300, Src: rand.NewPCG(4, 4), Common: detector.Common{Scale: scale.None}})
		b := mustNew(t, Config{Solver: solver, Iterations: 300, Src: rand.NewPCG(4, 4), Common: detector.Common{Scale: scale.None}})
		sa := testmat.FitScore(t, a, sp.X, sp.X)
		sb := testmat.FitScore(t, b, de.X, de.X)
		worst := testmat.MaxAbsDiff(sa, sb)
		t.Logf("%s: largest |sparse − dense| score difference %.3g", solver, worst)
		if !floats.EqualApprox(sa, sb, 1e-12) {
			t.Fatalf("%s: sparse and dense scores differ by up to %g", solver, worst)
		}
	}
}

// The sparse path never densifies: with 200,000 columns and 1,000 rows a
// dense copy of X would take 1.6 GB, while fitting and scoring the CSR
// matrix allocates only the frequencies (D × d = 16 × 200,000 values,
// 25.6 MB) and small buffers. The bound of 100 MB leaves room for those
// and nothing near a densified matrix.
func TestSparseNeverDensifies(t *testing.T) {
	const n, d = 1000, 200_000
	rng := rand.New(rand.NewPCG(5, 5))
	b := csr.NewBuilder(d)
	for i := 0; i < n; i++ {
		ind := []int{rng.IntN(d), rng.IntN(d)}
		if ind[0] == ind[1] {
			ind = ind[:1]
		}
		val := []float64{1, 2}[:len(ind)]
		if err := b.AddRow(ind, val); err != nil {
			t.Fatal(err)
		}
	}
	X := b.Build(d)
	det := mustNew(t, Config{Features: 16, Src: rand.NewPCG(1, 1)})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := det.Fit(context.Background(), X); err != nil {
		t.Fatal(err)
	}
	if _, err := det.Score(nil, X); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("fit + score of a %d × %d CSR matrix allocated %.1f MB", n, d, float64(alloc)/1e6)
	if alloc > 100e6 {
		t.Fatalf("allocated %.0f MB: the sparse path densified something", float64(alloc)/1e6)
	}
}
