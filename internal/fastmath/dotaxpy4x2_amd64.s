#include "textflag.h"

// HSUMADD adds the four lanes of y (x its low half) to the float64 at
// off(CX) and stores the sum there; clobbers X8.
#define HSUMADD(y, x, off) \
	VEXTRACTF128 $1, y, X8; \
	VADDPD       X8, x, x; \
	VHADDPD      x, x, x; \
	VADDSD       off(CX), x, x; \
	VMOVSD       x, off(CX)

// func dotAxpy4x2Asm(x0, x1 *float64, y, z *[4]*float64, a *[8][4]float64, s *[8]float64, n int)
//
// For n a positive multiple of 4 and c = 0…3:
//   s[c]   += Σ_j x0[j]·y_c[j],  s[4+c] += Σ_j x1[j]·y_c[j],
//   z_c[j] += a[c]·x0[j] + a[4+c]·x1[j],
// a[k] holding its coefficient in all four lanes. Two matrix rows share
// every load of y_c and every load and store of z_c.
TEXT ·dotAxpy4x2Asm(SB), NOSPLIT, $0-56
	MOVQ x0+0(FP), SI
	MOVQ x1+8(FP), DI
	MOVQ y+16(FP), AX
	MOVQ 0(AX), R8
	MOVQ 8(AX), R9
	MOVQ 16(AX), R10
	MOVQ 24(AX), R11
	MOVQ z+24(FP), AX
	MOVQ 0(AX), BX
	MOVQ 8(AX), DX
	MOVQ 16(AX), R12
	MOVQ 24(AX), R13
	MOVQ n+48(FP), AX
	SHLQ $3, AX                      // bytes
	// Every pointer moves to the end of its row and the index runs from
	// −bytes up to 0, so no register holds the count.
	ADDQ AX, SI
	ADDQ AX, DI
	ADDQ AX, R8
	ADDQ AX, R9
	ADDQ AX, R10
	ADDQ AX, R11
	ADDQ AX, BX
	ADDQ AX, DX
	ADDQ AX, R12
	ADDQ AX, R13
	NEGQ AX
	MOVQ a+32(FP), CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

loop:
	VMOVUPD (SI)(AX*1), Y8           // row i
	VMOVUPD (DI)(AX*1), Y9           // row i+1
	VMOVUPD (R8)(AX*1), Y10          // y0
	VFMADD231PD Y10, Y8, Y0
	VFMADD231PD Y10, Y9, Y4
	VMOVUPD (R9)(AX*1), Y11          // y1
	VFMADD231PD Y11, Y8, Y1
	VFMADD231PD Y11, Y9, Y5
	VMOVUPD (R10)(AX*1), Y12         // y2
	VFMADD231PD Y12, Y8, Y2
	VFMADD231PD Y12, Y9, Y6
	VMOVUPD (R11)(AX*1), Y13         // y3
	VFMADD231PD Y13, Y8, Y3
	VFMADD231PD Y13, Y9, Y7

	VMOVUPD (BX)(AX*1), Y10          // z0
	VFMADD231PD 0(CX), Y8, Y10
	VFMADD231PD 128(CX), Y9, Y10
	VMOVUPD Y10, (BX)(AX*1)
	VMOVUPD (DX)(AX*1), Y11          // z1
	VFMADD231PD 32(CX), Y8, Y11
	VFMADD231PD 160(CX), Y9, Y11
	VMOVUPD Y11, (DX)(AX*1)
	VMOVUPD (R12)(AX*1), Y12         // z2
	VFMADD231PD 64(CX), Y8, Y12
	VFMADD231PD 192(CX), Y9, Y12
	VMOVUPD Y12, (R12)(AX*1)
	VMOVUPD (R13)(AX*1), Y13         // z3
	VFMADD231PD 96(CX), Y8, Y13
	VFMADD231PD 224(CX), Y9, Y13
	VMOVUPD Y13, (R13)(AX*1)

	ADDQ $32, AX
	JNZ  loop

	MOVQ s+40(FP), CX
	HSUMADD(Y0, X0, 0)
	HSUMADD(Y1, X1, 8)
	HSUMADD(Y2, X2, 16)
	HSUMADD(Y3, X3, 24)
	HSUMADD(Y4, X4, 32)
	HSUMADD(Y5, X5, 40)
	HSUMADD(Y6, X6, 48)
	HSUMADD(Y7, X7, 56)

	VZEROUPPER
	RET
