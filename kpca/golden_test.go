package kpca

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/scale"
	"gonum.org/v1/gonum/mat"
)

func maxRelDiff(got, want []float64) float64 {
	worst := 0.0
	for i, w := range want {
		worst = math.Max(worst, math.Abs(got[i]-w)/math.Max(math.Abs(w), 1e-300))
	}
	return worst
}

// TestGoldenNumPy compares the scores with a direct NumPy evaluation of the
// centred reconstruction-error formula (testdata/golden.py: 500 cardio
// training rows, RBF, gamma = scale, q = 50) on 300 test rows and 300
// training rows. Tolerance 1e-8 relative. The exact method runs twice: the
// full eigendecomposition (denseMax raised above n) and block Lanczos
// (denseMax forced to 0, the default path for n > 300); Nyström with m = n landmarks must give the same scores.
func TestGoldenNumPy(t *testing.T) {
	train := testmat.ReadNPY(t, filepath.Join("testdata", "train.npy"))
	test := testmat.ReadNPY(t, filepath.Join("testdata", "test.npy"))
	golden := testmat.ReadNPY(t, filepath.Join("testdata", "golden.npy"))
	trainHead := train.Slice(0, 300, 0, 21)
	n, _ := train.Dims()
	cases := []struct {
		name    string
		cfg     Config
		lanczos bool
	}{
		{"exact/dense", Config{Components: 50, Common: method.Common{Scale: scale.None}}, false},
		{"exact/lanczos", Config{Components: 50, Common: method.Common{Scale: scale.None}}, true},
		{"nystrom m=n", Config{Components: 50, Method: Nystrom, Landmarks: n, Common: method.Common{Scale: scale.None}}, false},
	}
	defer func(old int) { denseMax = old }(denseMax)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			denseMax = 1 << 30
			if c.lanczos {
				if raceOn {
					t.Skip("the Lanczos path is also checked by TestLanczosMatchesDense; skipped under -race for time")
				}
				denseMax = 0
			}
			p, err := New(c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Fit(context.Background(), train); err != nil {
				t.Fatal(err)
			}
			for r, X := range []mat.Matrix{test, trainHead} {
				got, err := p.Score(nil, X)
				if err != nil {
					t.Fatal(err)
				}
				rel := maxRelDiff(got, golden.RawRowView(r))
				t.Logf("%s rows %d: max relative difference %.2g", c.name, r, rel)
				if rel > 1e-8 {
					t.Errorf("%s: max relative difference %.3g > 1e-8", c.name, rel)
				}
			}
		})
	}
}
