package cpd

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/sbinet/npyio/npy"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/tensor"
)

// readNPY reads a C-order float64 .npy file.
func readNPY(path string) ([]float64, []int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	r, err := npy.NewReader(f)
	if err != nil {
		return nil, nil, err
	}
	var data []float64
	if err := r.Read(&data); err != nil {
		return nil, nil, err
	}
	return data, r.Header.Descr.Shape, nil
}

// BenchmarkReferenceProblems times cpd on the exact tensors that
// ../shared/anchors/cpals_ref.py times (dumped by
// testdata/cpals_problems.py into $ANOMALY_CPALS_PROBLEMS; skipped when it
// is unset). Problem (a): one op = the 10 tensors of 100×100×100, rank 5,
// fitted in turn; metrics: median seconds per tensor (cpals_ref reports the
// median), mean sweeps, worst relative error. Problem (b): one op = the 500
// matrices of 125×45 at rank 2, by DecomposeBatch on both cores ("batch")
// and by Decompose in a loop on one goroutine ("serial"); metric: total
// seconds for the 500 (cpals_ref reports the total).
func BenchmarkReferenceProblems(b *testing.B) {
	dir := os.Getenv("ANOMALY_CPALS_PROBLEMS")
	if dir == "" {
		b.Skip("ANOMALY_CPALS_PROBLEMS not set; run cpd/testdata/cpals_problems.py first")
	}
	ctx := context.Background()
	for _, dist := range []string{"normal", "uniform"} {
		var xs []*tensor.Dense
		for r := 0; ; r++ {
			data, shape, err := readNPY(filepath.Join(dir, fmt.Sprintf("a_%s_%d.npy", dist, r)))
			if err != nil {
				break
			}
			x, err := tensor.New(shape, data)
			if err != nil {
				b.Fatal(err)
			}
			xs = append(xs, x)
		}
		if len(xs) == 0 {
			b.Fatalf("no problem (a) files in %s", dir)
		}
		for _, init := range []Init{SVD, Random} {
			if dist == "uniform" && init == SVD {
				continue // cpals_ref times uniform factors with random init only
			}
			b.Run(fmt.Sprintf("a_100x100x100_rank5/%s_factors/init_%v", dist, init), func(b *testing.B) {
				var times []float64
				sweeps, worst := 0, 0.0
				for i := 0; i < b.N; i++ {
					for r, x := range xs {
						t0 := time.Now()
						k, err := Decompose(ctx, x, Config{Rank: 5, Init: init, Src: rand.NewPCG(uint64(r), 0)})
						if err != nil {
							b.Fatal(err)
						}
						times = append(times, time.Since(t0).Seconds())
						sweeps += k.Iter
						worst = max(worst, relErr(x, &k))
					}
				}
				sort.Float64s(times)
				b.ReportMetric(times[len(times)/2], "median_s/tensor")
				b.ReportMetric(float64(sweeps)/float64(len(times)), "sweeps/tensor")
				b.ReportMetric(worst, "max_relerr")
			})
		}
	}
	data, shape, err := readNPY(filepath.Join(dir, "b.npy"))
	if err != nil {
		b.Fatal(err)
	}
	n := shape[0]
	X := mat.NewDense(n, shape[1]*shape[2], data)
	sh := shape[1:]
	for _, init := range []Init{SVD, Random} {
		b.Run(fmt.Sprintf("b_%dx125x45_rank2/init_%v/batch", n, init), func(b *testing.B) {
			sweeps, worst := 0, 0.0
			for i := 0; i < b.N; i++ {
				ks, err := DecomposeBatch(ctx, X, sh, Config{Rank: 2, Init: init})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				for j, k := range ks {
					sweeps += k.Iter
					x, _ := tensor.RowView(X, j, sh)
					worst = max(worst, relErr(x, &k))
				}
				b.StartTimer()
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "total_s")
			b.ReportMetric(float64(sweeps)/float64(b.N*n), "sweeps/tensor")
			b.ReportMetric(worst, "max_relerr")
		})
		b.Run(fmt.Sprintf("b_%dx125x45_rank2/init_%v/serial", n, init), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				for j := range n {
					x, _ := tensor.RowView(X, j, sh)
					if _, err := Decompose(ctx, x, Config{Rank: 2, Init: init, Src: rand.NewPCG(uint64(j), 0)}); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "total_s")
		})
	}
}
