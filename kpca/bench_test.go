package kpca

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kernelad/anomaly/internal/hugepage"
	"github.com/kernelad/anomaly/internal/shareddata"
	"github.com/kernelad/anomaly/internal/symeig"
	"github.com/kernelad/anomaly/internal/testmat"
	"gonum.org/v1/gonum/mat"
)

// benchTrain returns the 7,000 training rows of the seed-1 ADBench split of
// 10_cover (d = 10), or uniform random rows when the shared data is absent.
// testdata/bench_sklearn.py times scikit-learn on the same rows.
func benchTrain() (*mat.Dense, string) {
	train, _, src := shareddata.SplitOrUniform("10_cover", 7000, 3000, 10)
	return train, src
}

// BenchmarkFit times Fit (RBF, gamma = scale, 50 components) on the first n
// training rows: the exact method (dense eigendecomposition for n ≤ 1000,
// block Lanczos above) and Nyström with 500 landmarks.
func BenchmarkFit(b *testing.B) {
	train, src := benchTrain()
	for _, n := range []int{1000, 2500, 5000} {
		x := train.Slice(0, n, 0, 10)
		for _, c := range []struct {
			name string
			cfg  Config
		}{
			{"exact", Config{Components: 50}},
			{"nystrom500", Config{Components: 50, Method: Nystrom}},
		} {
			b.Run(fmt.Sprintf("%s/%s/n=%d", src, c.name, n), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					p, _ := New(c.cfg)
					if err := p.Fit(context.Background(), x); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkFitDefault is Fit at the defaults (explained variance 0.5) on
// the 7,000 training rows: what `anomaly bench` runs for each ADBench split.
func BenchmarkFitDefault(b *testing.B) {
	train, src := benchTrain()
	b.Run(src+"/n=7000", func(b *testing.B) {
		for b.Loop() {
			p, _ := New(Config{})
			if err := p.Fit(context.Background(), train); err != nil {
				b.Fatal(err)
			}
			vals, _ := p.Eigenvalues()
			b.ReportMetric(float64(len(vals)), "components")
		}
	})
}

// BenchmarkGrid is the Go side of testdata/bench_grid.py: Fit on the first
// n of the 7,000 training rows with q = 5, 9, 20 and 50 components and at
// the default rule (explained variance 0.5, 9 components on 10_cover).
func BenchmarkGrid(b *testing.B) {
	train, src := benchTrain()
	for _, n := range []int{5000, 7000} {
		x := train.Slice(0, n, 0, 10)
		for _, q := range []int{5, 9, 20, 50, 0} {
			name := fmt.Sprintf("q=%d", q)
			if q == 0 {
				name = "default"
			}
			b.Run(fmt.Sprintf("%s/n=%d/%s", src, n, name), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					p, _ := New(Config{Components: q})
					if err := p.Fit(context.Background(), x); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkSymMulBlock times one Lanczos pass (symMulBlock) over the upper
// triangle of an n × n matrix mapped as Fit maps it (hugepage.Alloc),
// with blocks of b = 8 (the default target's), 12 (50 components) and 28
// (the block 50 components had before it became q/4).
func BenchmarkSymMulBlock(b *testing.B) {
	for _, n := range []int{5000, 7000} {
		rng := rand.New(rand.NewPCG(1, 2))
		data, free := hugepage.Alloc(n * n)
		a := mat.NewDense(n, n, data)
		raw := a.RawMatrix()
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				raw.Data[i*n+j] = rng.Float64()
			}
		}
		for _, bs := range []int{8, 12, 28} {
			v := testmat.Random(rng, n, bs, (*rand.Rand).NormFloat64)
			dst := mat.NewDense(n, bs, nil)
			vt := mat.NewDense(bs, n, nil)
			acc := make([]float64, 2*bs*n)
			b.Run(fmt.Sprintf("n=%d/b=%d", n, bs), func(b *testing.B) {
				for b.Loop() {
					symMulBlock(context.Background(), dst, a, v, vt, acc)
				}
			})
		}
		free()
	}
}

// BenchmarkMulTN times mulTN, pᵀ·V for a Lanczos block p (n × 28) and a
// basis V of k columns stored, as blockLanczos stores it, in an n × 500
// matrix.
func BenchmarkMulTN(b *testing.B) {
	const n, bs, maxK = 7000, 28, 500
	rng := rand.New(rand.NewPCG(1, 2))
	v := mat.NewDense(n, maxK, nil)
	p := mat.NewDense(n, bs, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < maxK; j++ {
			v.Set(i, j, rng.NormFloat64())
		}
		for j := 0; j < bs; j++ {
			p.Set(i, j, rng.NormFloat64())
		}
	}
	pt := make([]float64, bs*n)
	for _, k := range []int{100, 300} {
		vk := v.Slice(0, n, 0, k).(*mat.Dense)
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			for b.Loop() {
				mulTN(context.Background(), p, vk, pt)
			}
		})
	}
}

// BenchmarkLanczosParts times the two costs rrWeight weighs against each
// other, in GFlop/s: Rayleigh–Ritz's tridiagonal reduction of a k × k
// Lanczos matrix (gonum's Dsytrd, 4k³/3 flops) and one pass of a 12-column
// block over an n × n kernel matrix (symMulBlock, 2n²·12 flops).
func BenchmarkLanczosParts(b *testing.B) {
	for _, k := range []int{200, 500} {
		t := gramOf(k, 5, 1, 1)
		b.Run(fmt.Sprintf("reduce/k=%d", k), func(b *testing.B) {
			for b.Loop() {
				symeig.Reduce(t)
			}
			b.ReportMetric(4.0/3*float64(k*k*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFlop/s")
		})
	}
	const bs = 12
	for _, n := range []int{2000, 5000} {
		a := gramOf(n, 5, 1, 1)
		blk := mat.NewDense(n, bs, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < bs; j++ {
				blk.Set(i, j, float64(i+j))
			}
		}
		wk := mat.NewDense(n, bs, nil)
		ps := paddedStride(n)
		blkT := mat.NewDense(bs, ps, nil).Slice(0, bs, 0, n).(*mat.Dense)
		acc := make([]float64, 2*bs*ps)
		b.Run(fmt.Sprintf("pass/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if err := symMulBlock(context.Background(), wk, a, blk, blkT, acc); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(2*float64(n*n*bs)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFlop/s")
		})
	}
}
