#include "textflag.h"
#include "hsum_amd64.h"

// DOT2 loads y_c from p into t and adds it times row i (Y8) to acc0 and
// times row i+1 (Y9) to acc1.
#define DOT2(p, t, acc0, acc1) \
	VMOVUPD (p)(AX*1), t; \
	VFMADD231PD t, Y8, acc0; \
	VFMADD231PD t, Y9, acc1

// AXPY2 updates z_c at p (through t): z += a[c]·row i + a[4+c]·row i+1,
// the broadcast coefficients at off0(CX) and off1(CX).
#define AXPY2(p, t, off0, off1) \
	VMOVUPD (p)(AX*1), t; \
	VFMADD231PD off0(CX), Y8, t; \
	VFMADD231PD off1(CX), Y9, t; \
	VMOVUPD t, (p)(AX*1)

// HSUMADD adds the four lanes of y (x its low half) to the float64 at
// off(CX) and stores the sum there; clobbers X8.
#define HSUMADD(y, x, off) \
	HSUM(y, x, X8); \
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
	DOT2(R8, Y10, Y0, Y4)
	DOT2(R9, Y11, Y1, Y5)
	DOT2(R10, Y12, Y2, Y6)
	DOT2(R11, Y13, Y3, Y7)
	AXPY2(BX, Y10, 0, 128)
	AXPY2(DX, Y11, 32, 160)
	AXPY2(R12, Y12, 64, 192)
	AXPY2(R13, Y13, 96, 224)

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
