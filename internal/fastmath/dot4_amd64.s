#include "textflag.h"
#include "hsum_amd64.h"

// func dot4Asm(x, y0, y1, y2, y3 *float64, n int) (s0, s1, s2, s3 float64)
//
// s_c = Σ_{j<n} x[j]·y_c[j] for n a positive multiple of 8: each group of
// eight x values is loaded once (two YMM registers) and used for the four
// rows, eight independent FMA chains (two per row) hide the FMA latency.
TEXT ·dot4Asm(SB), NOSPLIT, $0-80
	MOVQ x+0(FP), SI
	MOVQ y0+8(FP), R8
	MOVQ y1+16(FP), R9
	MOVQ y2+24(FP), R10
	MOVQ y3+32(FP), R11
	MOVQ n+40(FP), CX
	SHLQ $3, CX                      // bytes
	XORQ AX, AX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

loop:
	VMOVUPD (SI)(AX*1), Y8
	VMOVUPD 32(SI)(AX*1), Y9
	VFMADD231PD (R8)(AX*1), Y8, Y0
	VFMADD231PD 32(R8)(AX*1), Y9, Y1
	VFMADD231PD (R9)(AX*1), Y8, Y2
	VFMADD231PD 32(R9)(AX*1), Y9, Y3
	VFMADD231PD (R10)(AX*1), Y8, Y4
	VFMADD231PD 32(R10)(AX*1), Y9, Y5
	VFMADD231PD (R11)(AX*1), Y8, Y6
	VFMADD231PD 32(R11)(AX*1), Y9, Y7
	ADDQ $64, AX
	CMPQ AX, CX
	JLT  loop

	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y5, Y4, Y4
	VADDPD Y7, Y6, Y6

	HSUM(Y0, X0, X1)
	VMOVSD       X0, s0+48(FP)

	HSUM(Y2, X2, X3)
	VMOVSD       X2, s1+56(FP)

	HSUM(Y4, X4, X5)
	VMOVSD       X4, s2+64(FP)

	HSUM(Y6, X6, X7)
	VMOVSD       X6, s3+72(FP)

	VZEROUPPER
	RET
