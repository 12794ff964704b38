package fastmath

import "math"

// CosAffine sets dst[j] = s·cos(b[j] + Σ_l x[l]·wt[l·stride + j]) for
// j < len(dst): one row of a random Fourier feature map whose frequencies
// are stored transposed (wt is len(x) × stride, row-major, and its first
// len(dst) columns are used). With AVX2 and FMA, blocks of four features
// accumulate the product and take the cosine in registers, so the row is
// written once; this beats a matrix product followed by CosAdd when len(x)
// is small (tabular data), while for long x a blocked gemm reads wt better.
// It panics if the lengths do not fit. It reports, as CosAdd does,
// whether some argument was beyond MaxArg or NaN.
func CosAffine(dst, x, wt []float64, stride int, b []float64, s float64) (slow bool) {
	d, D := len(x), len(dst)
	if len(b) < D || d == 0 || stride < D || len(wt) < (d-1)*stride+D {
		panic("fastmath: CosAffine lengths do not fit")
	}
	n4 := 0
	if useAsm && s < MaxArg && s > -MaxArg {
		n4 = D &^ 3
		if n4 > 0 && cosAffineAsm(dst[:n4], x, wt, stride, b[:n4], s) {
			slow = true
			for j, v := range dst[:n4] {
				if !(v < MaxArg && v > -MaxArg) {
					dst[j] = s * math.Cos(v)
				}
			}
		}
	}
	if n4 == D {
		return slow
	}
	tail := dst[n4:]
	clear(tail)
	for l, xl := range x {
		row := wt[l*stride+n4 : l*stride+D]
		for j, w := range row {
			tail[j] += xl * w
		}
	}
	return cosAddGeneric(tail, b[n4:D], s) || slow
}
