package fastmath

import "math"

// Exp sets dst[j] = e^src[j] (dst and src may be the same slice; len(src)
// must be at least len(dst)). On amd64 with AVX2 and FMA four lanes at a
// time run math.Exp's own algorithm (FreeBSD's e_exp.c: reduction by ln2 in
// two parts, the rational approximation of e^r, scaling by 2^k; under an
// ulp from e^x), so the results agree with math.Exp to two ulps (tested on
// a million arguments; on amd64 math.Exp is an assembly routine of its own);
// arguments whose result is subnormal, zero or infinite, NaN, and other
// machines go through math.Exp itself. A slice's last len%4 values go
// through the same kernel (padded), so a result depends on its argument
// only, not on its position.
func Exp(dst, src []float64) {
	src = src[:len(dst)]
	m := 0
	if useAsm {
		m = len(dst) &^ 3
		// Blocks of 256 with their arguments saved, so that dst may be
		// src and an out-of-range lane can still be recomputed.
		var save [256]float64
		for lo := 0; lo < m; lo += len(save) {
			hi := min(lo+len(save), m)
			in := save[:hi-lo]
			copy(in, src[lo:hi])
			if expAsm(dst[lo:hi], in) {
				for j, x := range in {
					if !(x >= expLow && x <= expHigh) {
						dst[lo+j] = math.Exp(x)
					}
				}
			}
		}
	}
	if useAsm && m < len(dst) {
		// The tail through the same kernel, padded to four lanes, so that
		// a value does not depend on where in a slice it falls.
		var in, out [4]float64
		copy(in[:], src[m:])
		expAsm(out[:], in[:])
		for j := m; j < len(dst); j++ {
			if x := src[j]; x >= expLow && x <= expHigh {
				dst[j] = out[j-m]
			} else {
				dst[j] = math.Exp(x)
			}
		}
		return
	}
	for j := m; j < len(dst); j++ {
		dst[j] = math.Exp(src[j])
	}
}

// The range of arguments the assembly kernel covers: below expLow e^x is
// subnormal, above expHigh it overflows.
const (
	expLow  = -708.39641853226408
	expHigh = 7.09782712893383973096e+02
)

// ExpSum returns Σ_j e^{(x[j] − shift)·scale}: the sum of a log-sum-exp
// once its largest term is factored out (shift and scale chosen so that
// every exponent is at most 0 and the largest is 0, as in a kernel density
// sum; nothing then overflows). On amd64 with AVX2 and FMA the terms come
// four at a time from Exp's kernel and add into four partial sums, in one
// pass; exponents below −708.396, whose terms are subnormal, add 0 there
// (beside a term of 1 they are below its last bit). Elsewhere, and for the
// last len%4 values, each term is math.Exp's.
func ExpSum(x []float64, shift, scale float64) float64 {
	var s float64
	m := 0
	if useAsm {
		m = len(x) &^ 3
		if m > 0 {
			s = expSumAsm(x[:m], shift, scale)
		}
	}
	for _, v := range x[m:] {
		s += math.Exp((v - shift) * scale)
	}
	return s
}
