package expose

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kernelad/anomaly/internal/shareddata"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkSGDFitVsN (issue 2, must-show 3): SGD with T = 1000 and D = 2000
// on the first 10,000 rows and on all 567,498 rows of 16_http, data already
// loaded, at the defaults: the scale stage and the width rule are fitted on
// a sample of 10,000 rows, and the one pass over every row left is Fit's
// check of the input for NaN and ±Inf. The fit time should not grow with n
// (BenchmarkSGDFit has synthetic rows up to 4·10⁶).
func BenchmarkSGDFitVsN(b *testing.B) {
	X := shareddata.ADBench(b, "16_http").X.(*mat.Dense)
	all, _ := X.Dims()
	for _, n := range []int{10_000, all} {
		sub := X.Slice(0, n, 0, 3)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				d := mustNew(b, Config{Solver: SGD, Iterations: 1000, Src: rand.NewPCG(uint64(i), 1)})
				if err := d.Fit(context.Background(), sub); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBatchFitScore (issue 2, must-show 5): batch fit on the ADBench
// train split of 32_shuttle (seed 1: 7,000 rows, the split scikit-learn
// draws) and scoring of its test split (3,000 rows), D = 2000. The rows/s
// metric counts train + test rows, as expose/testdata/numpy_ref.py does for
// the NumPy reference.
func BenchmarkBatchFitScore(b *testing.B) {
	train, test := shareddata.ADBenchSplit(b, "32_shuttle", 1)
	ntr, _ := train.X.Dims()
	nte, _ := test.X.Dims()
	for _, D := range []int{500, 2000, 4000, 8000} {
		b.Run(fmt.Sprintf("D=%d", D), func(b *testing.B) {
			var dst []float64
			var err error
			for i := 0; i < b.N; i++ {
				d := mustNew(b, Config{Map: RFF, Features: D, Src: rand.NewPCG(1, 1)})
				if err := d.Fit(context.Background(), train.X); err != nil {
					b.Fatal(err)
				}
				if dst, err = d.Score(dst, test.X); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(ntr+nte)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkNystromFitScore (issue 35, must-show 3): BenchmarkBatchFitScore
// with map=nystrom at m = 500, 1,000 (the default) and 2,000 landmarks,
// beside the random map's default D = 2000, back to back on the same
// split: the fit includes K_mm's pivoted Cholesky factorisation.
func BenchmarkNystromFitScore(b *testing.B) {
	train, test := shareddata.ADBenchSplit(b, "32_shuttle", 1)
	ntr, _ := train.X.Dims()
	nte, _ := test.X.Dims()
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"rff D=2000", Config{Map: RFF, Features: 2000}},
		{"nystrom m=500", Config{Map: Nystrom, Landmarks: 500}},
		{"nystrom m=1000", Config{Map: Nystrom, Landmarks: 1000}},
		{"nystrom m=2000", Config{Map: Nystrom, Landmarks: 2000}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var dst []float64
			var err error
			for i := 0; i < b.N; i++ {
				cfg := tc.cfg
				cfg.Src = rand.NewPCG(1, 1)
				d := mustNew(b, cfg)
				if err := d.Fit(context.Background(), train.X); err != nil {
					b.Fatal(err)
				}
				if dst, err = d.Score(dst, test.X); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(ntr+nte)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
