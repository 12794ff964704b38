package fastmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Dot4 equals four sequential dot products to rounding (1e-13 relative to
// Σ|x_j·y_j|) for every length from 0 to 70, the tails included.
func TestDot4(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for n := 0; n <= 70; n++ {
		x := make([]float64, n)
		ys := make([][]float64, 4)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		for c := range ys {
			ys[c] = make([]float64, n+3) // longer than x: only len(x) is read
			for i := range ys[c] {
				ys[c][i] = rng.NormFloat64()
			}
		}
		got := [4]float64{}
		got[0], got[1], got[2], got[3] = Dot4(x, ys[0], ys[1], ys[2], ys[3])
		for c := range ys {
			var want, mag float64
			for j, v := range x {
				want += v * ys[c][j]
				mag += math.Abs(v * ys[c][j])
			}
			if math.Abs(got[c]-want) > 1e-13*max(mag, 1) {
				t.Fatalf("n=%d row %d: Dot4 %v, loop %v", n, c, got[c], want)
			}
		}
	}
}

func BenchmarkDot4(b *testing.B) {
	const n = 7000
	x, y := make([]float64, n), make([]float64, 4*n)
	for i := range x {
		x[i] = float64(i)
	}
	for b.Loop() {
		Dot4(x, y[:n], y[n:2*n], y[2*n:3*n], y[3*n:])
	}
	b.ReportMetric(float64(8*n*b.N)/b.Elapsed().Seconds()/1e9, "GFlop/s")
}

// DotAxpy4x2 equals eight sequential dot products (to 1e-13 relative to
// Σ|x_j·y_j|) and the two-row axpys (to two roundings) for every length
// from 0 to 70; values past the rows' length are left alone.
// Every slice of DotAxpy4x2 at its own allocation (mis = −1) or all at
// the same offset mis from a 32-byte boundary, where the first 4 − mis
// values go through the loop so that the assembly runs aligned.
func TestDotAxpy4x2(t *testing.T) {
	for mis := -1; mis < 4; mis++ {
		testDotAxpy4x2(t, mis)
	}
}

// alignedAt returns a zeroed slice of length n whose first value lies mis
// values past a 32-byte boundary (any placement for mis < 0).
func alignedAt(n, mis int) []float64 {
	if mis < 0 {
		return make([]float64, n)
	}
	buf := make([]float64, n+8)
	k := 0
	for misalign(buf[k:]) != mis {
		k++
	}
	return buf[k : k+n]
}

func testDotAxpy4x2(t *testing.T, mis int) {
	rng := rand.New(rand.NewPCG(3, 3))
	for n := 0; n <= 70; n++ {
		var x [2][]float64
		for r := range x {
			x[r] = alignedAt(n, mis)
			for i := range x[r] {
				x[r][i] = rng.NormFloat64()
			}
		}
		var y, z, z0 [4][]float64
		var a [8]float64
		for c := range y {
			y[c], z[c] = alignedAt(n+3, mis), alignedAt(n+3, mis)
			for i := range y[c] {
				y[c][i], z[c][i] = rng.NormFloat64(), rng.NormFloat64()
			}
			z0[c] = append([]float64(nil), z[c]...)
		}
		for k := range a {
			a[k] = rng.NormFloat64()
		}
		s := DotAxpy4x2(x[0], x[1], &y, &z, &a)
		for r := range x {
			for c := range y {
				var want, mag float64
				for j, v := range x[r] {
					want += v * y[c][j]
					mag += math.Abs(v * y[c][j])
				}
				if got := s[4*r+c]; math.Abs(got-want) > 1e-13*max(mag, 1) {
					t.Fatalf("mis=%d n=%d row %d col %d: dot %v, loop %v", mis, n, r, c, got, want)
				}
			}
		}
		for c := range y {
			for j := range z[c] {
				want, mag := z0[c][j], math.Abs(z0[c][j])
				if j < n {
					p, q := a[c]*x[0][j], a[4+c]*x[1][j]
					want += p + q
					mag += math.Abs(p) + math.Abs(q)
				}
				if math.Abs(z[c][j]-want) > 0x1p-51*mag {
					t.Fatalf("mis=%d n=%d col %d, z[%d] = %v, want %v", mis, n, c, j, z[c][j], want)
				}
			}
		}
	}
}
