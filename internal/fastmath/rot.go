package fastmath

// RotRows applies one sweep of plane rotations to the columns c0 … c1−1
// of the row-major matrix st (stride ld): for i from hi − 1 down to lo,
// the t-th of them (t = hi − 1 − i) with (c, s) = (cs[2t], cs[2t+1]),
// rows i and i+1 become c·row_i − s·row_{i+1} and s·row_i + c·row_{i+1}.
// This is the accumulation of a QL sweep of a symmetric tridiagonal
// eigensolver into the rows of Sᵀ. On amd64 with AVX2 and FMA, columns in
// groups of 32, then eight, run in assembly with row i+1 of each rotation carried in
// registers into the next one, so every row is loaded and stored once a
// sweep (results differ from the plain loop by rounding: fused
// multiply-adds); the remaining columns, and other machines, use the
// plain loop.
func RotRows(st []float64, ld, c0, c1 int, cs []float64, lo, hi int) {
	n := hi - lo
	if n <= 0 || c1 <= c0 {
		return
	}
	_ = cs[2*n-1]
	_ = st[hi*ld+c1-1]
	_ = st[lo*ld+c0]
	c := c0
	if useAsm {
		for ; c+32 <= c1; c += 32 {
			rotSweep32Asm(&st[hi*ld+c], ld, &cs[0], n)
		}
		for ; c+8 <= c1; c += 8 {
			rotSweep8Asm(&st[hi*ld+c], ld, &cs[0], n)
		}
	}
	if c == c1 {
		return
	}
	at := 0
	for i := hi - 1; i >= lo; i-- {
		cc, s := cs[at], cs[at+1]
		at += 2
		a := st[i*ld+c : i*ld+c1]
		b := st[(i+1)*ld+c : (i+1)*ld+c1]
		for j, f := range b {
			x := a[j]
			b[j] = s*x + cc*f
			a[j] = cc*x - s*f
		}
	}
}
