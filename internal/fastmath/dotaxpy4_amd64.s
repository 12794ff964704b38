#include "textflag.h"

// func dotAxpy4Asm(x, y *[4]*float64, z *[4]*float64, a *[4]float64, n int) (s0, s1, s2, s3 float64)
//
// For n a positive multiple of 4: s_c = Σ_{j<n} x[j]·y_c[j] and
// z_c[j] += a_c·x[j], c = 0…3. Each group of four x values is loaded once
// and used for the four dot products and the four updates.
TEXT ·dotAxpy4Asm(SB), NOSPLIT, $0-72
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), AX
	MOVQ 0(AX), R8
	MOVQ 8(AX), R9
	MOVQ 16(AX), R10
	MOVQ 24(AX), R11
	MOVQ z+16(FP), AX
	MOVQ 0(AX), DI
	MOVQ 8(AX), BX
	MOVQ 16(AX), DX
	MOVQ 24(AX), R12
	MOVQ a+24(FP), AX
	VBROADCASTSD 0(AX), Y12
	VBROADCASTSD 8(AX), Y13
	VBROADCASTSD 16(AX), Y14
	VBROADCASTSD 24(AX), Y15
	MOVQ n+32(FP), CX
	SHLQ $3, CX                      // bytes
	XORQ AX, AX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

loop:
	VMOVUPD (SI)(AX*1), Y8
	VFMADD231PD (R8)(AX*1), Y8, Y0
	VFMADD231PD (R9)(AX*1), Y8, Y1
	VFMADD231PD (R10)(AX*1), Y8, Y2
	VFMADD231PD (R11)(AX*1), Y8, Y3
	VMOVUPD (DI)(AX*1), Y4
	VMOVUPD (BX)(AX*1), Y5
	VMOVUPD (DX)(AX*1), Y6
	VMOVUPD (R12)(AX*1), Y7
	VFMADD231PD Y8, Y12, Y4
	VFMADD231PD Y8, Y13, Y5
	VFMADD231PD Y8, Y14, Y6
	VFMADD231PD Y8, Y15, Y7
	VMOVUPD Y4, (DI)(AX*1)
	VMOVUPD Y5, (BX)(AX*1)
	VMOVUPD Y6, (DX)(AX*1)
	VMOVUPD Y7, (R12)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JLT  loop

	VEXTRACTF128 $1, Y0, X4
	VADDPD       X4, X0, X0
	VHADDPD      X0, X0, X0
	VMOVSD       X0, s0+40(FP)

	VEXTRACTF128 $1, Y1, X5
	VADDPD       X5, X1, X1
	VHADDPD      X1, X1, X1
	VMOVSD       X1, s1+48(FP)

	VEXTRACTF128 $1, Y2, X6
	VADDPD       X6, X2, X2
	VHADDPD      X2, X2, X2
	VMOVSD       X2, s2+56(FP)

	VEXTRACTF128 $1, Y3, X7
	VADDPD       X7, X3, X3
	VHADDPD      X3, X3, X3
	VMOVSD       X3, s3+64(FP)

	VZEROUPPER
	RET
