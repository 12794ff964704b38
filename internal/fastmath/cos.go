package fastmath

import "math"

// MaxArg is the largest |x| handled by the fast path: beyond it the
// three-part reduction loses bits and CosAdd calls math.Cos.
const MaxArg = 1 << 20

// Cody–Waite split of π/2: pio2a + pio2b + pio2c, each with trailing zero
// bits so k·pio2a and k·pio2b are exact for |k| < 2²⁰ (values from
// fdlibm's __rem_pio2: pio2_1, pio2_2, pio2_3).
const (
	twoOverPi = 6.36619772367581382433e-01
	pio2a     = 1.57079632673412561417e+00
	pio2b     = 6.07710050630396597660e-11
	pio2c     = 2.02226624871116645580e-21
)

// Cephes coefficients for sin and cos on [−π/4, π/4] (as in Go's math.sin).
const (
	s0, s1, s2, s3, s4, s5 = 1.58962301576546568060e-10, -2.50507477628578072866e-8, 2.75573136213857245213e-6, -1.98412698295895385996e-4, 8.33333333332211858878e-3, -1.66666666666666307295e-1
	c0, c1, c2, c3, c4, c5 = -1.13585365213876817300e-11, 2.08757008419747316778e-9, -2.75573141792967388112e-7, 2.48015872888517045348e-5, -1.38888888888730564116e-3, 4.16666666666665929218e-2
)

// round is 1.5·2⁵²: adding and subtracting it rounds a float64 of magnitude
// below 2⁵¹ to the nearest integer (ties to even) in two instructions.
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
		k := (x*twoOverPi + round) - round
		r := ((x - k*pio2a) - k*pio2b) - k*pio2c
		z := r * r
		c := 1.0 - 0.5*z + z*z*((((((c0*z)+c1)*z+c2)*z+c3)*z+c4)*z+c5)
		sn := r + r*z*((((((s0*z)+s1)*z+s2)*z+s3)*z+s4)*z+s5)
		q := int64(k) & 3
		odd := uint64(q&1) * ^uint64(0)
		bits := (math.Float64bits(c) &^ odd) | (math.Float64bits(sn) & odd)
		neg := uint64(((q+1)>>1)&1) << 63
		dst[j] = s * math.Float64frombits(bits^neg)
	}
	return slow
}

// Cos returns cos(x) to a few ulp (math.Cos beyond MaxArg, and for NaN/Inf).
func Cos(x float64) float64 {
	v := [1]float64{x}
	CosAdd(v[:], []float64{0}, 1)
	return v[0]
}
