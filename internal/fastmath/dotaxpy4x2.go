package fastmath

// DotAxpy4x2 returns the dot products s[c] = Σ_j x0[j]·y[c][j] and
// s[4+c] = Σ_j x1[j]·y[c][j] and adds a[c]·x0 + a[4+c]·x1 to z[c], for
// c = 0…3 and two rows x0, x1 of equal length: the kernel of a symmetric
// matrix–block product that reads each element of a triangle once (kernel
// PCA's Lanczos steps), where a row's strictly upper part gives both its
// own dot products and its transpose's contribution to the rows below.
// Each element of y and z is read (and z written) once for both rows: the
// product is bound by that traffic. y[c] and z[c] must hold at least
// len(x0) values; only the first len(x0) are read or changed. On amd64
// with AVX2 and FMA the multiple-of-4 prefix runs in assembly (four
// partial sums per dot product, fused multiply-adds), the rest and other
// machines in a plain loop, so the results differ from sequential sums by
// rounding only.
func DotAxpy4x2(x0, x1 []float64, y, z *[4][]float64, a *[8]float64) (s [8]float64) {
	n := len(x0)
	x1 = x1[:n]
	y0, y1, y2, y3 := y[0][:n], y[1][:n], y[2][:n], y[3][:n]
	z0, z1, z2, z3 := z[0][:n], z[1][:n], z[2][:n], z[3][:n]
	m := 0
	if useAsm && n >= 4 {
		m = n &^ 3
		yp := [4]*float64{&y0[0], &y1[0], &y2[0], &y3[0]}
		zp := [4]*float64{&z0[0], &z1[0], &z2[0], &z3[0]}
		var av [8][4]float64
		for k, v := range a {
			av[k] = [4]float64{v, v, v, v}
		}
		dotAxpy4x2Asm(&x0[0], &x1[0], &yp, &zp, &av, &s, m)
	}
	for j := m; j < n; j++ {
		u, v := x0[j], x1[j]
		s[0] += u * y0[j]
		s[1] += u * y1[j]
		s[2] += u * y2[j]
		s[3] += u * y3[j]
		s[4] += v * y0[j]
		s[5] += v * y1[j]
		s[6] += v * y2[j]
		s[7] += v * y3[j]
		z0[j] += a[0]*u + a[4]*v
		z1[j] += a[1]*u + a[5]*v
		z2[j] += a[2]*u + a[6]*v
		z3[j] += a[3]*u + a[7]*v
	}
	return s
}
