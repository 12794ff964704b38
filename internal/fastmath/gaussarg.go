package fastmath

// GaussArg sets dst[k] = scale·max(sq[k] + sj − 2·g[k], 0) for k <
// len(dst): the exponent of a Gaussian kernel column from the cross
// products g = x_iᵀx_j and the squared norms sq = ‖x_i‖², sj = ‖x_j‖²
// (scale = −γ), with the clamp at zero guarding the rounding of the
// difference. The arithmetic is the plain loop's, operation for operation
// and bit for bit: (sq[k] + sj) − 2·g[k], then the clamp (a negative
// difference becomes 0; −0 and NaN pass through), then the product. On
// amd64 with AVX2 the multiple-of-4 prefix runs in assembly. dst may be g.
func GaussArg(dst, g, sq []float64, sj, scale float64) {
	n := len(dst)
	g, sq = g[:n], sq[:n]
	m := 0
	if useAsm && n >= 4 {
		m = n &^ 3
		gaussArgAsm(&dst[0], &g[0], &sq[0], sj, scale, m)
	}
	for k := m; k < n; k++ {
		r := sq[k] + sj - 2*g[k]
		if r < 0 {
			r = 0
		}
		dst[k] = scale * r
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
