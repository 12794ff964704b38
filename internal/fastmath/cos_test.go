package fastmath

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The fast cosine must agree with math.Cos to within 2⁻⁵⁰ absolute (a few
// ulp of values of order one) over the range feature maps produce, and at
// the quadrant boundaries where the selection changes.
func TestCosMatchesMath(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(x float64) {
		if d := math.Abs(Cos(x) - math.Cos(x)); d > 0x1p-50 {
			t.Fatalf("cos(%v): fast %v, math %v, diff %g", x, Cos(x), math.Cos(x), d)
		}
	}
	// Blocks through CosAdd (the assembly kernel where available) over the
	// range projections produce and over the whole fast range.
	for _, scale := range []float64{200, MaxArg} {
		x := make([]float64, 1_000_000)
		for i := range x {
			x[i] = (rng.Float64()*2 - 1) * scale
		}
		got := append([]float64(nil), x...)
		CosAdd(got, make([]float64, len(x)), 1)
		for i, v := range x {
			if d := math.Abs(got[i] - math.Cos(v)); d > 0x1p-50 {
				t.Fatalf("CosAdd at %v: %v, math %v, diff %g", v, got[i], math.Cos(v), d)
			}
			if i%10 == 0 {
				check(v)
			}
		}
	}
	for k := -1000; k <= 1000; k++ {
		for _, e := range []float64{-1e-9, 0, 1e-9} {
			check(float64(k)*math.Pi/4 + e)
		}
	}
	for _, x := range []float64{0, math.Copysign(0, -1), MaxArg * 2, -1e300, math.Inf(1), math.NaN()} {
		got, want := Cos(x), math.Cos(x)
		if !(got == want || (math.IsNaN(got) && math.IsNaN(want))) {
			t.Fatalf("cos(%v) = %v, want %v", x, got, want)
		}
	}
}

func TestCosAdd(t *testing.T) {
	dst := []float64{0, 1, 2}
	CosAdd(dst, []float64{0, 0.5, -2}, 2)
	want := []float64{2, 2 * math.Cos(1.5), 2}
	for i := range dst {
		if math.Abs(dst[i]-want[i]) > 1e-15 {
			t.Fatalf("CosAdd[%d] = %v, want %v", i, dst[i], want[i])
		}
	}
}

func ExampleCosAdd() {
	z := []float64{0, math.Pi / 3}
	CosAdd(z, []float64{0, 0}, 1)
	fmt.Printf("%.6f %.6f\n", z[0], z[1])
	// Output: 1.000000 0.500000
}

func BenchmarkCos(b *testing.B) {
	for _, impl := range []struct {
		name string
		f    func([]float64, []float64)
	}{
		{"fast", func(d, p []float64) { CosAdd(d, p, 1) }},
		{"math", func(d, p []float64) {
			for j := range d {
				d[j] = math.Cos(d[j] + p[j])
			}
		}},
	} {
		b.Run(impl.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			x, p, d := make([]float64, 2000), make([]float64, 2000), make([]float64, 2000)
			for i := range x {
				x[i], p[i] = rng.NormFloat64()*3, rng.Float64()*2*math.Pi
			}
			b.SetBytes(8 * 2000)
			for i := 0; i < b.N; i++ {
				copy(d, x)
				impl.f(d, p)
			}
		})
	}
}

// The assembly blocks and the portable kernel agree to rounding, and lanes
// out of the fast range (|x| ≥ MaxArg, NaN, ±Inf) inside an assembly block
// still get math.Cos.
func TestCosAddPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 3, 4, 5, 8, 17, 2000, 2003} {
		x, b := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], b[i] = rng.NormFloat64()*50, rng.Float64()*2*math.Pi
		}
		if n > 6 {
			x[1], x[5], x[6] = 3e7, math.NaN(), math.Inf(-1)
		}
		got, gen := append([]float64(nil), x...), append([]float64(nil), x...)
		CosAdd(got, b, 0.5)
		cosAddGeneric(gen, b, 0.5)
		for i := range got {
			want := 0.5 * math.Cos(x[i]+b[i])
			if math.IsNaN(want) {
				if !math.IsNaN(got[i]) || !math.IsNaN(gen[i]) {
					t.Fatalf("n=%d i=%d: NaN expected, got %v / %v", n, i, got[i], gen[i])
				}
				continue
			}
			if math.Abs(got[i]-want) > 0x1p-50 || math.Abs(gen[i]-want) > 0x1p-50 {
				t.Fatalf("n=%d i=%d x=%v: CosAdd %v, generic %v, math %v", n, i, x[i]+b[i], got[i], gen[i], want)
			}
		}
	}
	t.Logf("assembly kernel in use: %v", useAsm)
}

// CosAffine (assembly blocks and portable tail) equals the product followed
// by math.Cos to rounding, with a stride larger than the columns used and
// an out-of-range argument inside a block.
func TestCosAffine(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, c := range []struct{ d, D, stride int }{{1, 4, 4}, {3, 9, 9}, {9, 2000, 2000}, {5, 17, 20}, {2, 3, 8}, {4, 12, 13}, {6, 20, 20}, {9, 1002, 1010}} {
		x, wt, b := make([]float64, c.d), make([]float64, c.d*c.stride), make([]float64, c.D)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		for i := range wt {
			wt[i] = rng.NormFloat64() * 3
		}
		for i := range b {
			b[i] = rng.Float64() * 2 * math.Pi
		}
		if c.D >= 8 {
			wt[5] = 1e9 // feature 5: argument far out of range
		}
		got := make([]float64, c.D)
		CosAffine(got, x, wt, c.stride, b, 0.7)
		for j := 0; j < c.D; j++ {
			arg := b[j]
			for l := range x {
				arg += x[l] * wt[l*c.stride+j]
			}
			want := 0.7 * math.Cos(arg)
			tol := 0x1p-48 * max(1, math.Abs(arg)) // the sums may round differently
			if math.Abs(got[j]-want) > tol {
				t.Fatalf("d=%d D=%d j=%d: got %v, want %v", c.d, c.D, j, got[j], want)
			}
		}
	}
}

// CosAddDot leaves dst as CosAdd does (bit for bit) and returns its dot
// product with w to rounding, for every length up to 70 (assembly blocks
// and the tail), with and without arguments out of the fast range.
func TestCosAddDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for n := 0; n <= 70; n++ {
		for _, far := range []bool{false, true} {
			x, b, w := make([]float64, n), make([]float64, n), make([]float64, n+2)
			for i := range x {
				x[i], b[i] = rng.NormFloat64()*30, rng.Float64()*2*math.Pi
			}
			for i := range w {
				w[i] = rng.NormFloat64()
			}
			if far && n > 5 {
				x[1], x[5] = 3e7, -2e9
			}
			got, want := append([]float64(nil), x...), append([]float64(nil), x...)
			dot, slow := CosAddDot(got, b, 0.7, w)
			wslow := CosAdd(want, b, 0.7)
			var wdot, mag float64
			for j, v := range want {
				wdot += v * w[j]
				mag += math.Abs(v * w[j])
			}
			for j := range got {
				if got[j] != want[j] {
					t.Fatalf("n=%d far=%v: dst[%d] %v, CosAdd %v", n, far, j, got[j], want[j])
				}
			}
			if slow != wslow || math.Abs(dot-wdot) > 1e-14*max(mag, 1) {
				t.Fatalf("n=%d far=%v: dot %v slow %v, want %v %v", n, far, dot, slow, wdot, wslow)
			}
		}
	}
}
