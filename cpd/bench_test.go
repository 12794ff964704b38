package cpd

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkDecompose times problem (a) of ../shared/anchors/cpals_ref.py: a
// 100×100×100 tensor of rank 5 with N(0,1) factors and 1% noise, fitted at
// rank 5, plus a grid of smaller sizes. One op = one full decomposition
// (initialisation included, data generation excluded).
func BenchmarkDecompose(b *testing.B) {
	for _, c := range []struct {
		shape []int
		rank  int
	}{
		{[]int{100, 100, 100}, 5},
		{[]int{50, 50, 50}, 5},
		{[]int{12, 10, 8}, 2},
		{[]int{125, 45}, 2},
	} {
		for _, init := range []Init{SVD, Random} {
			b.Run(fmt.Sprintf("%v/rank%d/%v", c.shape, c.rank, init), func(b *testing.B) {
				x, _, _ := planted(rand.New(rand.NewPCG(1000, 0)), c.shape, c.rank, 0.01)
				cfg := Config{Rank: c.rank, Init: init}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					cfg.Src = rand.NewPCG(uint64(i), 0)
					if _, err := Decompose(context.Background(), x, cfg); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkDecomposeBatch times problem (b) of cpals_ref.py: 500 matrices
// of 125×45, each rank 2 plus 1% noise, fitted at rank 2 (one op = all 500),
// and the 12×10×8 rank-2 tensors of the stm scaling benchmark (n = 1600
// and 6400). Metrics: sweeps per tensor and process CPU seconds per op.
func BenchmarkDecomposeBatch(b *testing.B) {
	for _, c := range []struct {
		n     int
		shape []int
		rank  int
	}{
		{500, []int{125, 45}, 2},
		{1600, []int{12, 10, 8}, 2},
		{6400, []int{12, 10, 8}, 2},
	} {
		rng := rand.New(rand.NewPCG(7, 0))
		d := 1
		for _, s := range c.shape {
			d *= s
		}
		X := mat.NewDense(c.n, d, nil)
		for i := range c.n {
			x, _, _ := planted(rng, c.shape, c.rank, 0.01)
			X.SetRow(i, x.Data())
		}
		for _, init := range []Init{SVD, Random} {
			b.Run(fmt.Sprintf("%dx%v/rank%d/%v", c.n, c.shape, c.rank, init), func(b *testing.B) {
				cfg := Config{Rank: c.rank, Init: init}
				c0 := cpuSeconds()
				sweeps := 0
				for i := 0; i < b.N; i++ {
					cfg.Src = rand.NewPCG(uint64(i), 0)
					ks, err := DecomposeBatch(context.Background(), X, c.shape, cfg)
					if err != nil {
						b.Fatal(err)
					}
					for _, k := range ks {
						sweeps += k.Iter
					}
				}
				b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "cpu-s/op")
				b.ReportMetric(float64(sweeps)/float64(b.N*c.n), "sweeps/tensor")
			})
		}
	}
}

// cpuSeconds returns the user + system CPU time of the process, a steadier
// measure of the work than wall time on a shared machine.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

// BenchmarkDecomposeSerial measures the CPU cost of one decomposition of a
// small tensor, free of the batch's scheduling: one goroutine locked to its
// thread factorises 2000 planted 12×10×8 tensors (the stm scaling
// benchmark's shape) or 200 matrices of 125×45 (cpals_ref.py's problem b),
// rank 2, 1% noise, with one reused workspace. Metric: the thread's CPU
// microseconds per tensor, best over the b.N passes (on a shared machine
// the minimum is the least disturbed).
func BenchmarkDecomposeSerial(b *testing.B) {
	for _, c := range []struct {
		shape []int
		n     int
	}{{[]int{12, 10, 8}, 2000}, {[]int{125, 45}, 200}} {
		rng := rand.New(rand.NewPCG(7, 0))
		var xs [][]float64
		for range c.n {
			x, _, _ := planted(rng, c.shape, 2, 0.01)
			xs = append(xs, x.Data())
		}
		b.Run(fmt.Sprintf("%v/rank2", c.shape), func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cfg, err := Config{Rank: 2}.check(c.shape)
			if err != nil {
				b.Fatal(err)
			}
			ws := newWorkspace(c.shape, 2, false)
			best := math.Inf(1)
			for range b.N {
				t0 := threadCPUSeconds()
				for _, x := range xs {
					if _, err := ws.decompose(context.Background(), x, cfg, nil); err != nil {
						b.Fatal(err)
					}
				}
				best = min(best, threadCPUSeconds()-t0)
			}
			b.ReportMetric(best/float64(c.n)*1e6, "cpu-us/tensor")
		})
	}
}

// threadCPUSeconds returns the user + system CPU time of the calling
// thread (Linux RUSAGE_THREAD; 0 where unsupported).
func threadCPUSeconds() float64 {
	const rusageThread = 1
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
