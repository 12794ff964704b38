package fastmath

import "golang.org/x/sys/cpu"

var useAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// cosAddAsm sets dst[j] = s·cos(dst[j] + b[j]) for len(dst) a multiple of
// four. A lane whose argument x is out of range (|x| ≥ MaxArg or NaN) is
// left holding x, and the function then returns true.
//
//go:noescape
func cosAddAsm(dst, b []float64, s float64) (outOfRange bool)

// cosAffineAsm sets dst[j] = s·cos(b[j] + Σ_l x[l]·wt[l·stride + j]) for
// len(dst) a multiple of four, with the same out-of-range convention as
// cosAddAsm.
//
//go:noescape
func cosAffineAsm(dst, x, wt []float64, stride int, b []float64, s float64) (outOfRange bool)

// dot4Asm returns the four dot products of x with y0…y3 over n elements,
// n a positive multiple of 8 (see Dot4).
//
//go:noescape
func dot4Asm(x, y0, y1, y2, y3 *float64, n int) (s0, s1, s2, s3 float64)

// expAsm sets dst[j] = e^src[j] for len(dst) a multiple of four; lanes
// outside [−708.396, 709.78] or NaN are left undefined and reported (see
// Exp).
//
//go:noescape
func expAsm(dst, src []float64) (outOfRange bool)

// dotAxpy4x2Asm is the assembly prefix of DotAxpy4x2 (n a positive
// multiple of 4); a holds each coefficient in four lanes, s accumulates.
//
//go:noescape
func dotAxpy4x2Asm(x0, x1 *float64, y, z *[4]*float64, a *[8][4]float64, s *[8]float64, n int)

// mulNN4x8Asm is the assembly block of MulNN: four rows of C from c,
// columns 0…n−1 (n a positive multiple of 8), over k ≥ 1 terms.
//
//go:noescape
func mulNN4x8Asm(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, n, k int)

// mulNNSeq4x8Asm is mulNN4x8Asm with a multiply and an add per term.
//
//go:noescape
func mulNNSeq4x8Asm(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, n, k int)

// mulNN1x16Asm is the one-row block of MulNN: row c of C, columns
// 0…n−1 (n a positive multiple of 16), over k ≥ 1 terms, for the rows
// below the last block of four (a single row: one kernel column).
//
//go:noescape
func mulNN1x16Asm(c, a, b *float64, ldb, n, k int)

// mulNNSeq1x16Asm is mulNN1x16Asm with a multiply and an add per term.
//
//go:noescape
func mulNNSeq1x16Asm(c, a, b *float64, ldb, n, k int)

// mulNN4x4Asm is the four-column block of MulNN (k ≥ 1).
//
//go:noescape
func mulNN4x4Asm(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, k int)

// mulNNSeq4x4Asm is mulNN4x4Asm with a multiply and an add per term.
//
//go:noescape
func mulNNSeq4x4Asm(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, k int)

// expSumAsm returns Σ_j e^{(x[j] − shift)·scale} for len(x) a multiple of
// four (see ExpSum).
//
//go:noescape
func expSumAsm(x []float64, shift, scale float64) (sum float64)

// cosAddDotAsm is cosAddAsm that also returns Σ dst[j]·w[j] over the new
// values of the lanes in range (see CosAddDot).
//
//go:noescape
func cosAddDotAsm(dst, b, w []float64, s float64) (dot float64, outOfRange bool)

// gaussArgAsm is GaussArg's assembly prefix (n a positive multiple of 4).
//
//go:noescape
func gaussArgAsm(dst, cross, sq *float64, sj, scale float64, n int)

// scaleTo32Asm is ScaleTo32's assembly prefix (n a positive multiple of 4).
//
//go:noescape
func scaleTo32Asm(dst *float32, x *float64, s float64, n int)

// rotSweep8Asm applies n ≥ 1 rotations of a sweep to eight columns, p at
// row hi (see RotRows).
//
//go:noescape
func rotSweep8Asm(p *float64, ld int, cs *float64, n int)

// rotSweep32Asm is rotSweep8Asm on 32 columns.
//
//go:noescape
func rotSweep32Asm(p *float64, ld int, cs *float64, n int)

// transposeI16Asm is TransposeInt16's assembly prefix (rows a positive
// multiple of 8).
//
//go:noescape
func transposeI16Asm(dst *float64, ldd int, src *int16, lds int, rows int)
