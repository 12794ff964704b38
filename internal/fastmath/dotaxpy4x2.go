package fastmath

import "unsafe"

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
	p, m := 0, 0
	if useAsm && n >= 8 {
		// When every slice lies at the same offset from a 32-byte
		// boundary (the rows of a matrix whose row length is a multiple
		// of four, on an aligned allocation), the first few values go
		// through the loop below so that the assembly reads and writes
		// whole aligned vectors, none split across two cache lines.
		mis := misalign(x0)
		if mis != 0 && misalign(x1) == mis && misalign(y0) == mis && misalign(y1) == mis && misalign(y2) == mis && misalign(y3) == mis &&
			misalign(z0) == mis && misalign(z1) == mis && misalign(z2) == mis && misalign(z3) == mis {
			p = 4 - mis
			dotAxpy4x2Loop(x0, x1, y0, y1, y2, y3, z0, z1, z2, z3, a, &s, 0, p)
		}
		m = p + (n-p)&^3
		yp := [4]*float64{&y0[p], &y1[p], &y2[p], &y3[p]}
		zp := [4]*float64{&z0[p], &z1[p], &z2[p], &z3[p]}
		var av [8][4]float64
		for k, v := range a {
			av[k] = [4]float64{v, v, v, v}
		}
		dotAxpy4x2Asm(&x0[p], &x1[p], &yp, &zp, &av, &s, m-p)
	}
	dotAxpy4x2Loop(x0, x1, y0, y1, y2, y3, z0, z1, z2, z3, a, &s, m, n)
	return s
}

// misalign returns the offset of x's first value from a 32-byte boundary,
// in values (0…3).
func misalign(x []float64) int {
	return int(uintptr(unsafe.Pointer(unsafe.SliceData(x))) % 32 / 8)
}

// dotAxpy4x2Loop is DotAxpy4x2's plain loop over j = lo…hi−1.
func dotAxpy4x2Loop(x0, x1, y0, y1, y2, y3, z0, z1, z2, z3 []float64, a *[8]float64, s *[8]float64, lo, hi int) {
	for j := lo; j < hi; j++ {
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
}
