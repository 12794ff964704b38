package kpca

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/kernelad/anomaly/internal/shareddata"
	"gonum.org/v1/gonum/mat"
)

// TestDuplicates: identical training rows (a zero centred Gram matrix) and
// the duplicate-heavy 16_http and 34_smtp (first 400 training rows of the
// seed-1 ADBench split, skipped when ../shared/data is absent) give finite
// scores and threshold with the exact and the Nyström method.
func TestDuplicates(t *testing.T) {
	same := mat.NewDense(50, 3, nil)
	for i := 0; i < 50; i++ {
		same.SetRow(i, []float64{1, 2, 3})
	}
	sets := map[string][2]mat.Matrix{"identical rows": {same, mat.NewDense(2, 3, []float64{1, 2, 3, 0, 0, 0})}}
	for _, name := range []string{"16_http", "34_smtp"} {
		if !shareddata.Has(filepath.Join("adbench", name+".npz")) {
			t.Logf("shared data adbench/%s.npz absent; only the synthetic case runs", name)
			continue
		}
		tr, te := shareddata.ADBenchSplit(t, name, 1)
		sets[name] = [2]mat.Matrix{tr.X.(*mat.Dense).Slice(0, 400, 0, 3), te.X.(*mat.Dense).Slice(0, 500, 0, 3)}
	}
	for name, s := range sets {
		for _, m := range []Method{Exact, Nystrom} {
			p, _ := New(Config{Method: m, Landmarks: 100})
			if err := p.Fit(context.Background(), s[0]); err != nil {
				t.Fatalf("%s method %d: %v", name, m, err)
			}
			sc, err := p.Score(nil, s[1])
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range sc {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("%s method %d: score %v", name, m, v)
				}
			}
			vals, ex := p.Eigenvalues()
			if math.IsNaN(p.Threshold()) || math.IsNaN(ex) {
				t.Errorf("%s method %d: threshold %v, explained %v", name, m, p.Threshold(), ex)
			}
			t.Logf("%s method %d: %d components kept, explained %.6f", name, m, len(vals), ex)
		}
	}
}
