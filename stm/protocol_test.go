package stm

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/eval"
	"github.com/kernelad/anomaly/internal/shareddata"
	"github.com/kernelad/anomaly/internal/testmat"
	_ "github.com/kernelad/anomaly/ocsvm"
	"github.com/kernelad/anomaly/tensor"
)

// TestProtocols is must-show 3 (ANOMALY_LONG=1; needs ../shared/data/tensor):
// AUC of 1stm, r1stm, r1svm and the vector ocsvm, all at their defaults, on
// the paper's protocol (entries min-max scaled to [0, 1] over the set, 5%
// U(0,1) anomaly tensors added) and on the class protocol (one class
// normal, anomalies drawn from the other classes to make 5% of the rows),
// seeds 1–3; fit and scored on the same rows (unsupervised, labels for the
// AUC only). It prints the median AUC per set, protocol and method.
func TestProtocols(t *testing.T) {
	testmat.SkipUnless(t, "ANOMALY_LONG", "to run the AUC protocols on ../shared/data/tensor")
	dir := shareddata.Path(t, "tensor")
	files, _ := filepath.Glob(filepath.Join(dir, "*.npz"))
	if len(files) == 0 {
		t.Skip("no tensor data in " + dir)
	}
	methods := []string{"1stm", "r1stm", "r1svm", "ocsvm"}
	var lines []string
	for _, f := range files {
		ds, err := dataset.Load(f, dataset.Options{})
		if err != nil {
			t.Fatal(err)
		}
		X := mat.DenseCopyOf(ds.X)
		data := X.RawMatrix().Data
		lo, hi := floats.Min(data), floats.Max(data)
		for i := range data {
			data[i] = (data[i] - lo) / (hi - lo)
		}
		shape := tensor.FormatShape(ds.Shape)
		name := strings.TrimSuffix(filepath.Base(f), ".npz")
		seen := map[int]bool{}
		var classes []int
		for _, c := range ds.Class {
			if !seen[c] {
				seen[c] = true
				classes = append(classes, c)
			}
		}
		sort.Ints(classes) // fixed order: the classes share rng
		type key struct{ proto, method string }
		aucs := map[key][]float64{}
		for seed := uint64(1); seed <= 3; seed++ {
			rng := rand.New(rand.NewPCG(seed, 77))
			// Paper protocol.
			n, d := X.Dims()
			m := int(math.Round(0.05 * float64(n) / 0.95))
			P := mat.NewDense(n+m, d, nil)
			P.Slice(0, n, 0, d).(*mat.Dense).Copy(X)
			y := make([]int, n+m)
			for i := n; i < n+m; i++ {
				y[i] = 1
				for j := range d {
					P.Set(i, j, rng.Float64())
				}
			}
			for _, meth := range methods {
				aucs[key{"paper", meth}] = append(aucs[key{"paper", meth}], runAUC(t, meth, shape, seed, P, y))
			}
			// Class protocol.
			for _, c := range classes {
				var normal, other []int
				for i, k := range ds.Class {
					if k == c {
						normal = append(normal, i)
					} else {
						other = append(other, i)
					}
				}
				m := int(math.Round(0.05 * float64(len(normal)) / 0.95))
				m = max(m, 1)
				rng.Shuffle(len(other), func(a, b int) { other[a], other[b] = other[b], other[a] })
				idx := append(append([]int(nil), normal...), other[:m]...)
				C := mat.NewDense(len(idx), d, nil)
				yc := make([]int, len(idx))
				for r, i := range idx {
					C.SetRow(r, X.RawRowView(i))
					if r >= len(normal) {
						yc[r] = 1
					}
				}
				for _, meth := range methods {
					aucs[key{"class", meth}] = append(aucs[key{"class", meth}], runAUC(t, meth, shape, seed, C, yc))
				}
			}
		}
		for _, proto := range []string{"paper", "class"} {
			line := fmt.Sprintf("%-20s %-5s", name, proto)
			for _, meth := range methods {
				v := aucs[key{proto, meth}]
				sort.Float64s(v)
				line += fmt.Sprintf("  %s %.3f", meth, v[len(v)/2])
			}
			lines = append(lines, line)
		}
	}
	t.Logf("median AUC (seeds 1–3; class protocol: over every class and seed)\n%s", strings.Join(lines, "\n"))
}

func runAUC(t *testing.T, method, shape string, seed uint64, X *mat.Dense, y []int) float64 {
	params := map[string]string{}
	if method != "ocsvm" {
		params["seed"] = fmt.Sprint(seed)
		// ANOMALY_STM_SET="nu=0.5,gamma_factor=0.1" overrides defaults of
		// the three random-feature / tensor methods (for choosing them).
		for _, kv := range strings.Split(os.Getenv("ANOMALY_STM_SET"), ",") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				params[k] = v
			}
		}
	}
	if method == "1stm" || method == "r1stm" {
		params["shape"] = shape
	}
	return runAUCp(t, method, params, X, y)
}

// runAUCp fits method with params to X and returns the AUC-ROC of its
// training scores against y.
func runAUCp(t *testing.T, method string, params map[string]string, X *mat.Dense, y []int) float64 {
	d, err := detector.New(method, params)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Fit(context.Background(), X); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	s, err := d.Score(nil, X)
	if err != nil {
		t.Fatal(err)
	}
	return eval.AUCROC(s, y)
}
