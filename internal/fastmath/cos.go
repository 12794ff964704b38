package fastmath

import "math"

// MaxArg is the largest |x| handled by the fast path: beyond it the
// three-part reduction loses bits and CosAdd calls math.Cos.
const MaxArg = 1 << 20

// Cody–Waite split of π: pia + pib + pic, each with trailing zero bits so
// k·pia and k·pib are exact for |k| < 2²⁰ (twice fdlibm's pio2_1, pio2_2,
// pio2_3 from __rem_pio2).
const (
	invPi = 1 / math.Pi
	pia   = 2 * 1.57079632673412561417e+00
	pib   = 2 * 6.07710050630396597660e-11
	pic   = 2 * 2.02226624871116645580e-21
)

// Taylor coefficients t_k = (−1)^k/(2k)! of cos r = Σ t_k z^k, z = r², for
// |r| ≤ π/2: the first term left out, (π/2)²²/22!, is below 2·10⁻¹⁷.
const (
	t1, t2, t3, t4, t5  = -1.0 / 2, 1.0 / 24, -1.0 / 720, 1.0 / 40320, -1.0 / 3628800
	t6, t7, t8, t9, t10 = 1.0 / 479001600, -1.0 / 87178291200, 1.0 / 20922789888000, -1.0 / 6402373705728000, 1.0 / 2432902008176640000
)

// round is 1.5·2⁵²: adding it to a float64 of magnitude below 2⁵¹ leaves
// that value rounded to the nearest integer (ties to even) in the low bits
// of the mantissa; subtracting it again gives the integer as a float64.
const round = 6755399441055744.0

// CosAdd sets dst[j] = s·cos(dst[j] + b[j]) for every j and reports
// whether some argument was beyond MaxArg or NaN (those go through
// math.Cos, the only way a result can be NaN for a finite s). It panics if
// the lengths differ. On amd64 with AVX2 and FMA, blocks of four run in
// assembly (the same reduction and polynomials, four lanes at a time).
func CosAdd(dst, b []float64, s float64) (slow bool) {
	if len(dst) != len(b) {
		panic("fastmath: length mismatch")
	}
	n4 := 0
	if useAsm && s < MaxArg && s > -MaxArg {
		n4 = len(dst) &^ 3
		if n4 > 0 && cosAddAsm(dst[:n4], b[:n4], s) {
			slow = true
			// Lanes whose argument was out of range hold the argument
			// itself (|v| ≥ MaxArg, or NaN), never a result (|v| ≤ |s|).
			for j, v := range dst[:n4] {
				if !(v < MaxArg && v > -MaxArg) {
					dst[j] = s * math.Cos(v)
				}
			}
		}
	}
	return cosAddGeneric(dst[n4:], b[n4:], s) || slow
}

// CosAddDot is CosAdd followed by the dot product of the new dst with w
// (len(w) ≥ len(dst)): a feature row and its inner product with an
// embedding in one pass over the row where the assembly runs, the products
// summed four at a time. When some argument was out of range (slow, as
// CosAdd reports) the dot product is recomputed over the finished row,
// and a caller that then changes the row recomputes it again.
func CosAddDot(dst, b []float64, s float64, w []float64) (dot float64, slow bool) {
	if len(dst) != len(b) || len(w) < len(dst) {
		panic("fastmath: length mismatch")
	}
	n4 := 0
	if useAsm && s < MaxArg && s > -MaxArg {
		n4 = len(dst) &^ 3
		if n4 > 0 {
			dot, slow = cosAddDotAsm(dst[:n4], b[:n4], w[:n4], s)
			if slow {
				for j, v := range dst[:n4] {
					if !(v < MaxArg && v > -MaxArg) {
						dst[j] = s * math.Cos(v)
					}
				}
			}
		}
	}
	if cosAddGeneric(dst[n4:], b[n4:], s) {
		slow = true
	}
	lo := n4
	if slow {
		dot, lo = 0, 0
	}
	for j := lo; j < len(dst); j++ {
		dot += dst[j] * w[j]
	}
	return dot, slow
}

// cosAddGeneric is the portable kernel; it reports whether some argument
// went through math.Cos.
func cosAddGeneric(dst, b []float64, s float64) (slow bool) {
	b = b[:len(dst)]
	for j, v := range dst {
		x := v + b[j]
		if !(x < MaxArg && x > -MaxArg) { // also catches NaN
			dst[j] = s * math.Cos(x)
			slow = true
			continue
		}
		// The body of cos, inlined by hand: the compiler does not inline a
		// function this size, and the call would cost a third of the time.
		// x = kπ + r, |r| ≤ π/2, and cos x = (−1)^k cos r; k's parity is
		// the low bit of kr.
		kr := x*invPi + round
		k := kr - round
		r := ((x - k*pia) - k*pib) - k*pic
		z := r * r
		c := 1 + z*(t1+z*(t2+z*(t3+z*(t4+z*(t5+z*(t6+z*(t7+z*(t8+z*(t9+z*t10)))))))))
		neg := math.Float64bits(kr) << 63
		dst[j] = s * math.Float64frombits(math.Float64bits(c)^neg)
	}
	return slow
}

// Cos returns cos(x) to a few ulp (math.Cos beyond MaxArg, and for NaN/Inf).
func Cos(x float64) float64 {
	v := [1]float64{x}
	CosAdd(v[:], []float64{0}, 1)
	return v[0]
}
