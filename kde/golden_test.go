package kde

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/sbinet/npyio/npy"
	"gonum.org/v1/gonum/mat"
)

func readNPY(t testing.TB, name string) *mat.Dense {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var m mat.Dense
	if err := npy.Read(f, &m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return &m
}

// TestGoldenSklearn compares LogDensity with scikit-learn 1.2.1's
// KernelDensity.score_samples (rtol = atol = 0) on seed 1 of the ADBench
// split of cardio and thyroid (testdata/mksplit.go writes the rows,
// testdata/golden.py the log-densities): every kernel, Scott and Silverman
// bandwidths, both scorers. Tolerance: 1e-9 relative (|Δ| ≤ 1e-9·max(1,
// |log p|)); −Inf must match −Inf.
func TestGoldenSklearn(t *testing.T) {
	kernels := []Kernel{Gaussian, Tophat, Epanechnikov, Exponential, Linear, Cosine}
	rules := []Rule{Scott, Silverman}
	for _, name := range []string{"6_cardio", "38_thyroid"} {
		train := readNPY(t, name+"_train.npy")
		test := readNPY(t, name+"_test.npy")
		golden := readNPY(t, name+"_golden.npy")
		for ki, kern := range kernels {
			for ri, rule := range rules {
				want := golden.RawRowView(2*ki + ri)
				for _, alg := range []Algorithm{Exact, Tree} {
					k, err := New(Config{Kernel: kern, Rule: rule, Algorithm: alg})
					if err != nil {
						t.Fatal(err)
					}
					if err := k.Fit(context.Background(), train); err != nil {
						t.Fatal(err)
					}
					got, err := k.LogDensity(nil, test)
					if err != nil {
						t.Fatal(err)
					}
					worst := 0.0
					for i, w := range want {
						g := got[i]
						if math.IsInf(w, -1) || math.IsInf(g, -1) {
							if g != w {
								t.Errorf("%s %v rule %d alg %d row %d: got %v, want %v", name, kern, rule, alg, i, g, w)
							}
							continue
						}
						rel := math.Abs(g-w) / math.Max(1, math.Abs(w))
						worst = math.Max(worst, rel)
					}
					if worst > 1e-9 {
						t.Errorf("%s %v rule %d alg %d: worst relative difference %.3g > 1e-9", name, kern, rule, alg, worst)
					}
					if testing.Verbose() {
						t.Logf("%s %-12v rule %d alg %d h=%.6f worst rel diff %.2g", name, kern, rule, alg, k.Bandwidth(), worst)
					}
				}
			}
		}
	}
}
