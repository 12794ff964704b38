#include "textflag.h"

// func transposeI16Asm(dst *float64, ldd int, src *int16, lds int, rows int)
//
// For i < rows (a positive multiple of 8) and k < 8:
// dst[i·ldd + k] = float64(src[k·lds + i]). Eight rows at a
// time: one 16-byte load from each of the eight source columns, an 8 × 8
// transpose of 16-bit words in three rounds of unpacks, then each row's
// eight words sign-extended to int32 and converted to float64, exactly.
TEXT ·transposeI16Asm(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), R8
	SHLQ $3, R8                // bytes between destination rows
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R9
	SHLQ $1, R9                // bytes between source columns
	MOVQ rows+32(FP), CX
	LEAQ (R9)(R9*2), R11       // 3 columns
	LEAQ (R9)(R9*4), R12       // 5
	LEAQ (R11)(R11*1), R13     // 6
	LEAQ (R12)(R9*2), BX       // 7

loop:
	VMOVDQU (SI), X0
	VMOVDQU (SI)(R9*1), X1
	VMOVDQU (SI)(R9*2), X2
	VMOVDQU (SI)(R11*1), X3
	VMOVDQU (SI)(R9*4), X4
	VMOVDQU (SI)(R12*1), X5
	VMOVDQU (SI)(R13*1), X6
	VMOVDQU (SI)(BX*1), X7
	// Words: a0 b0 a1 b1 … from columns a, b; and so on.
	VPUNPCKLWD X1, X0, X8
	VPUNPCKHWD X1, X0, X9
	VPUNPCKLWD X3, X2, X10
	VPUNPCKHWD X3, X2, X11
	VPUNPCKLWD X5, X4, X12
	VPUNPCKHWD X5, X4, X13
	VPUNPCKLWD X7, X6, X14
	VPUNPCKHWD X7, X6, X15
	// Double words: a0 b0 c0 d0 a1 b1 c1 d1 …
	VPUNPCKLDQ X10, X8, X0
	VPUNPCKHDQ X10, X8, X1
	VPUNPCKLDQ X11, X9, X2
	VPUNPCKHDQ X11, X9, X3
	VPUNPCKLDQ X14, X12, X4
	VPUNPCKHDQ X14, X12, X5
	VPUNPCKLDQ X15, X13, X6
	VPUNPCKHDQ X15, X13, X7
	// Quad words: row r = a_r b_r … h_r.
	VPUNPCKLQDQ X4, X0, X8
	VPUNPCKHQDQ X4, X0, X9
	VPUNPCKLQDQ X5, X1, X10
	VPUNPCKHQDQ X5, X1, X11
	VPUNPCKLQDQ X6, X2, X12
	VPUNPCKHQDQ X6, X2, X13
	VPUNPCKLQDQ X7, X3, X14
	VPUNPCKHQDQ X7, X3, X15

#define ROW(x) \
	VPMOVSXWD x, Y0; \
	VCVTDQ2PD X0, Y1; \
	VEXTRACTI128 $1, Y0, X2; \
	VCVTDQ2PD X2, Y2; \
	VMOVUPD Y1, (DI); \
	VMOVUPD Y2, 32(DI); \
	ADDQ R8, DI

	ROW(X8)
	ROW(X9)
	ROW(X10)
	ROW(X11)
	ROW(X12)
	ROW(X13)
	ROW(X14)
	ROW(X15)

	ADDQ $16, SI
	SUBQ $8, CX
	JNZ  loop
	VZEROUPPER
	RET
