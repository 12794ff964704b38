//go:build !amd64

package fastmath

const useAsm = false

func cosAddAsm(dst, b []float64, s float64) bool { panic("fastmath: no assembly kernel") }

func cosAffineAsm(dst, x, wt []float64, stride int, b []float64, s float64) bool {
	panic("fastmath: no assembly kernel")
}

func dot4Asm(x, y0, y1, y2, y3 *float64, n int) (s0, s1, s2, s3 float64) {
	panic("fastmath: no assembly kernel")
}

func expAsm(dst, src []float64) bool { panic("fastmath: no assembly kernel") }

func dotAxpy4x2Asm(x0, x1 *float64, y, z *[4]*float64, a *[8][4]float64, s *[8]float64, n int) {
	panic("fastmath: no assembly kernel")
}

func mulNN4x8Asm(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, n, k int) {
	panic("fastmath: no assembly kernel")
}

func mulNNSeq4x8Asm(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, n, k int) {
	panic("fastmath: no assembly kernel")
}

func mulNN4x4Asm(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, k int) {
	panic("fastmath: no assembly kernel")
}

func mulNNSeq4x4Asm(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, k int) {
	panic("fastmath: no assembly kernel")
}

func expSumAsm(x []float64, shift, scale float64) float64 { panic("fastmath: no assembly kernel") }

func cosAddDotAsm(dst, b, w []float64, s float64) (float64, bool) {
	panic("fastmath: no assembly kernel")
}

func mulNN1x16Asm(c, a, b *float64, ldb, n, k int) { panic("fastmath: no assembly kernel") }

func mulNNSeq1x16Asm(c, a, b *float64, ldb, n, k int) { panic("fastmath: no assembly kernel") }

func gaussArgAsm(dst, cross, sq *float64, sj, scale float64, n int) {
	panic("fastmath: no assembly kernel")
}

func scaleTo32Asm(dst *float32, x *float64, s float64, n int) { panic("fastmath: no assembly kernel") }

func rotSweep8Asm(p *float64, ld int, cs *float64, n int) { panic("fastmath: no assembly kernel") }

func rotSweep32Asm(p *float64, ld int, cs *float64, n int) { panic("fastmath: no assembly kernel") }

func transposeI16Asm(dst *float64, ldd int, src *int16, lds int, rows int) {
	panic("fastmath: no assembly kernel")
}
