package fastmath

import "math"

// SqDist returns ‖x − y‖² from ‖x‖², ‖y‖² and ⟨x, y⟩ by the expansion
// ‖x‖² + ‖y‖² − 2⟨x, y⟩: clamped at 0 against the rounding of the
// difference (a negative difference becomes 0; −0 passes through), and
// +Inf where the difference is not a number. For finite rows that happens
// only when a squared norm overflows (Inf − Inf, with rows beyond about
// 1e154), and such a row is then at least that far from any row of
// moderate size: its kernel value is 0, not NaN.
func SqDist(sx, sy, dot float64) float64 {
	r := sx + sy - 2*dot
	if r < 0 {
		return 0
	}
	if r != r {
		return math.Inf(1)
	}
	return r
}

// GaussArg sets dst[k] = scale·SqDist(sq[k], sj, g[k]) for k < len(dst):
// the exponent of a Gaussian kernel column from the cross products g =
// x_iᵀx_j and the squared norms sq = ‖x_i‖², sj = ‖x_j‖² (scale = −γ).
// The arithmetic is the plain loop's, operation for operation and bit for
// bit: (sq[k] + sj) − 2·g[k], then SqDist's clamp and its NaN → +Inf,
// then the product. On amd64 with AVX2 the multiple-of-4 prefix runs in
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
