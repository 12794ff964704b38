package fastmath

import "math"

// SqDist returns ‖x − y‖² from ‖x‖², ‖y‖² and ⟨x, y⟩ by the expansion
// ‖x‖² + ‖y‖² − 2⟨x, y⟩, clamped at 0 against the rounding of the
// difference (a negative difference becomes 0; −0 passes through). When a
// squared norm is +Inf (a row beyond about 1e154, whose square
// overflows), the result is +Inf, not the NaN of Inf − Inf: such a row is
// at least that far from any row of moderate size, and its kernel value
// is 0. A NaN in the inputs still gives NaN.
func SqDist(sx, sy, dot float64) float64 {
	t := sx + sy
	if t > math.MaxFloat64 {
		return t
	}
	r := t - 2*dot
	if r < 0 {
		return 0
	}
	return r
}

// GaussArg sets dst[k] = scale·SqDist(sq[k], sj, g[k]) for k < len(dst):
// the exponent of a Gaussian kernel column from the cross products g =
// x_iᵀx_j and the squared norms sq = ‖x_i‖², sj = ‖x_j‖² (scale = −γ).
// The arithmetic is the plain loop's, operation for operation and bit for
// bit: sq[k] + sj, +Inf when that is +Inf, else minus 2·g[k] and
// clamped at 0 (NaN passes), then the product. On amd64 with AVX2 the multiple-of-4 prefix runs in
// assembly. dst may be g.
func GaussArg(dst, g, sq []float64, sj, scale float64) {
	n := len(dst)
	g, sq = g[:n], sq[:n]
	m := 0
	if useAsm && n >= 4 {
		m = n &^ 3
		gaussArgAsm(&dst[0], &g[0], &sq[0], sj, scale, m)
	}
	for k := m; k < n; k++ {
		dst[k] = scale * SqDist(sq[k], sj, g[k])
	}
}

// ScaleTo32 sets dst[k] = float32(s·x[k]) for k < len(dst), rounding to
// nearest as Go's conversion does (the single-precision columns of a
// kernel cache). On amd64 with AVX2 the multiple-of-4 prefix runs in
// assembly.
func ScaleTo32(dst []float32, x []float64, s float64) {
	n := len(dst)
	x = x[:n]
	m := 0
	if useAsm && n >= 4 {
		m = n &^ 3
		scaleTo32Asm(&dst[0], &x[0], s, m)
	}
	for k := m; k < n; k++ {
		dst[k] = float32(s * x[k])
	}
}
