package fastmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Exp agrees with math.Exp to within two ulps on a million arguments over
// the whole range (the out-of-range ends included), in place and not, for
// every slice length modulo four; special values are math.Exp's. (On amd64
// math.Exp is its own assembly with another reduction, so the two may
// round to neighbours on either side of e^x.)
func TestExp(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	const n = 1 << 20
	src := make([]float64, n+3)
	for i := range src {
		switch i % 4 {
		case 0:
			src[i] = -750 + 1470*rng.Float64() // everything, both ends included
		case 1:
			src[i] = -rng.ExpFloat64() * 20 // the kernels' arguments
		case 2:
			src[i] = (rng.Float64() - 0.5) * 1e-6 // near 0
		default:
			src[i] = -40 * rng.Float64()
		}
	}
	src[5], src[9], src[13], src[17] = math.NaN(), math.Inf(-1), math.Inf(1), 0
	worst := 0.0
	for _, m := range []int{n, n + 1, n + 2, n + 3} {
		dst := make([]float64, m)
		Exp(dst, src)
		for i, x := range src[:m] {
			want := math.Exp(x)
			got := dst[i]
			if math.IsNaN(want) != math.IsNaN(got) || (!math.IsNaN(want) && got != want && math.Abs(got-want) > 2*ulp(want)) {
				t.Fatalf("len %d: Exp(%v) = %v, math.Exp %v", m, x, got, want)
			}
			if want != 0 && !math.IsInf(want, 0) && !math.IsNaN(want) {
				worst = max(worst, math.Abs(got-want)/ulp(want))
			}
		}
	}
	inplace := append([]float64(nil), src[:1000]...)
	Exp(inplace, inplace)
	for i, x := range src[:1000] {
		if d := math.Abs(inplace[i] - math.Exp(x)); d > 2*ulp(math.Exp(x)) && !math.IsNaN(x) {
			t.Fatalf("in place: Exp(%v) = %v", x, inplace[i])
		}
	}
	t.Logf("largest difference from math.Exp: %.2f ulp", worst)
}

func ulp(x float64) float64 {
	x = math.Abs(x)
	return math.Nextafter(x, math.Inf(1)) - x
}

func BenchmarkExp(b *testing.B) {
	src := make([]float64, 4096)
	for i := range src {
		src[i] = -float64(i) / 100
	}
	dst := make([]float64, len(src))
	b.Run("fastmath", func(b *testing.B) {
		for b.Loop() {
			Exp(dst, src)
		}
		b.ReportMetric(float64(len(src)*b.N)/b.Elapsed().Seconds()/1e6, "Mexp/s")
	})
	b.Run("math", func(b *testing.B) {
		for b.Loop() {
			for i, x := range src {
				dst[i] = math.Exp(x)
			}
		}
		b.ReportMetric(float64(len(src)*b.N)/b.Elapsed().Seconds()/1e6, "Mexp/s")
	})
}

// ExpSum equals the sum of math.Exp((x − shift)·scale) to rounding (1e-14
// relative) for every length up to 70 and exponents from 0 down past the
// subnormal range (those add nothing visible beside the term of 1), and
// gives +Inf for an exponent beyond 709.78 and NaN for a NaN.
func TestExpSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for n := 0; n <= 70; n++ {
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.Float64() * 900 // (x − 0)·(−1): exponents 0 … −900
		}
		if n > 0 {
			x[rng.IntN(n)] = 0 // the largest term, 1
		}
		var want float64
		for _, v := range x {
			want += math.Exp(-v)
		}
		if got := ExpSum(x, 0, -1); math.Abs(got-want) > 1e-14*want {
			t.Fatalf("n=%d: ExpSum %v, loop %v", n, got, want)
		}
	}
	for _, c := range []struct {
		x    float64
		want float64
	}{{710, math.Inf(1)}, {math.NaN(), math.NaN()}} {
		x := []float64{0, 0, c.x, 0, 0}
		got := ExpSum(x, 0, 1)
		if !(got == c.want || math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Fatalf("ExpSum with %v: %v, want %v", c.x, got, c.want)
		}
	}
}
