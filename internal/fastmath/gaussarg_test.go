package fastmath

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestGaussArgScaleTo32 checks GaussArg and ScaleTo32 against their plain
// loops bit for bit, over lengths around the multiple-of-4 prefix and with
// the clamp's edge cases (a negative difference, an exact −0 difference,
// NaN, overflowing norms whose difference is Inf − Inf) among random
// values.
func TestGaussArgScaleTo32(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 3, 4, 5, 8, 13, 64, 1001} {
		g, sq := make([]float64, n), make([]float64, n)
		for k := range g {
			sq[k] = rng.Float64() * 10
			g[k] = (rng.Float64() - 0.3) * 10
			switch k % 7 {
			case 1:
				g[k] = sq[k] // sq + sj − 2g < 0 for sj < sq
			case 2:
				sq[k], g[k] = math.Copysign(0, -1), 0 // with sj = −0: (−0 + −0) − 0 = −0
			case 3:
				g[k] = math.NaN()
			case 4:
				sq[k], g[k] = math.Inf(1), math.Inf(1) // Inf − Inf: the rows are far apart
			case 5:
				sq[k] = math.Inf(1) // Inf: the same
			case 6:
				sq[k] = math.NaN() // a NaN norm stays NaN
			}
		}
		for _, sj := range []float64{math.Copysign(0, -1), 0.5, 3} {
			for _, scale := range []float64{-0.7, 2} {
				got := make([]float64, n)
				GaussArg(got, g, sq, sj, scale)
				for k := range got {
					r := sq[k] + sj - 2*g[k]
					switch {
					case math.IsInf(sq[k]+sj, 1):
						r = math.Inf(1)
					case r < 0:
						r = 0
					}
					want := scale * r
					if math.Float64bits(got[k]) != math.Float64bits(want) && !(math.IsNaN(got[k]) && math.IsNaN(want)) {
						t.Fatalf("n=%d sj=%v scale=%v: GaussArg[%d] = %v, want %v", n, sj, scale, k, got[k], want)
					}
				}
				f := make([]float32, n)
				ScaleTo32(f, got, 1.75)
				for k := range f {
					want := float32(1.75 * got[k])
					if math.Float32bits(f[k]) != math.Float32bits(want) && !(f[k] != f[k] && want != want) {
						t.Fatalf("n=%d: ScaleTo32[%d] = %v, want %v", n, k, f[k], want)
					}
				}
			}
		}
	}
}

// BenchmarkGaussArg times one kernel column's exponents (the loop the
// smo cache fills) over column lengths from L1-resident to L2-sized.
func BenchmarkGaussArg(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{256, 4096, 65536} {
		g, sq := make([]float64, n), make([]float64, n)
		for k := range g {
			g[k], sq[k] = rng.NormFloat64(), 1+rng.Float64()
		}
		dst := make([]float64, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(24 * n))
			for b.Loop() {
				GaussArg(dst, g, sq, 1.5, -0.1)
			}
		})
	}
}
