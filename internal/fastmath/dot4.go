package fastmath

// Dot4 returns the dot products of x with y0, y1, y2 and y3, each of
// which must be at least as long as x: the inner kernel of a product of a
// matrix row with a block of vectors (kernel PCA's Lanczos steps). x is
// read once for the four. On amd64 with AVX2 and FMA the multiple-of-8
// prefix runs in assembly with fused multiply-adds (eight partial sums per
// row, so the result differs from a sequential sum by rounding only); the
// rest, and other machines, use a plain loop.
func Dot4(x, y0, y1, y2, y3 []float64) (s0, s1, s2, s3 float64) {
	n := len(x)
	y0, y1, y2, y3 = y0[:n], y1[:n], y2[:n], y3[:n]
	m := 0
	if useAsm && n >= 8 {
		m = n &^ 7
		s0, s1, s2, s3 = dot4Asm(&x[0], &y0[0], &y1[0], &y2[0], &y3[0], m)
	}
	for j := m; j < n; j++ {
		v := x[j]
		s0 += v * y0[j]
		s1 += v * y1[j]
		s2 += v * y2[j]
		s3 += v * y3[j]
	}
	return
}
