package kde

import (
	"context"
	"fmt"
	"testing"

	"github.com/kernelad/anomaly/internal/shareddata"
	"gonum.org/v1/gonum/mat"
)

// benchData returns the seed-1 ADBench split of 10_cover (7,000 train and
// 3,000 test rows, d = 10), or uniform random rows of the same shape when
// the shared data is absent. testdata/bench_sklearn.py times scikit-learn on
// the same split.
func benchData() (train, test *mat.Dense, source string) {
	return shareddata.SplitOrUniform("10_cover", 7000, 3000, 10)
}

// BenchmarkScore times Score of the 3,000 test rows against n training rows
// (the first n of the 7,000; Gaussian kernel, Scott's bandwidth) for the
// exact scorer and the tree at rtol = 0 and 1e-4.
func BenchmarkScore(b *testing.B) {
	train, test, src := benchData()
	for _, n := range []int{1750, 3500, 7000} {
		x := train.Slice(0, n, 0, 10)
		for _, c := range []struct {
			name string
			cfg  Config
		}{
			{"exact", Config{Algorithm: Exact}},
			{"tree_rtol0", Config{Algorithm: Tree}},
			{"tree_rtol1e-4", Config{Algorithm: Tree, RTol: 1e-4}},
		} {
			b.Run(fmt.Sprintf("%s/%s/n=%d", src, c.name, n), func(b *testing.B) {
				k, _ := New(c.cfg)
				if err := k.Fit(context.Background(), x); err != nil {
					b.Fatal(err)
				}
				dst := make([]float64, 3000)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := k.Score(dst, test); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
