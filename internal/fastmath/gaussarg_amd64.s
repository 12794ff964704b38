#include "textflag.h"

// func gaussArgAsm(dst, cross, sq *float64, sj, scale float64, n int)
//
// dst[k] = scale·SqDist(sq[k], sj, g[k]) for n a positive multiple of 4.
// VMAXPD with 0 as its first source returns the second one when neither
// is greater (−0) or either is NaN: the plain loop's clamp; the lanes
// where sq + sj compares equal to +Inf (a NaN does not) take +Inf.
TEXT ·gaussArgAsm(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ cross+8(FP), SI
	MOVQ sq+16(FP), DX
	VBROADCASTSD sj+24(FP), Y14
	VBROADCASTSD scale+32(FP), Y15
	MOVQ n+40(FP), CX
	SHLQ $3, CX
	XORQ AX, AX
	VXORPD Y13, Y13, Y13
	MOVQ $0x7ff0000000000000, R8 // +Inf
	VMOVQ R8, X12
	VBROADCASTSD X12, Y12

loop:
	VMOVUPD (SI)(AX*1), Y0
	VADDPD  (DX)(AX*1), Y14, Y1 // sq + sj
	VADDPD  Y0, Y0, Y0          // 2·g, exactly
	VCMPPD  $0, Y12, Y1, Y2     // sq + sj == +Inf: a norm overflowed
	VSUBPD  Y0, Y1, Y1          // (sq + sj) − 2·g
	VMAXPD  Y1, Y13, Y1         // max(0, ·): 0 > r ? 0 : r
	VBLENDVPD Y2, Y12, Y1, Y1   // +Inf where sq + sj is
	VMULPD  Y15, Y1, Y1
	VMOVUPD Y1, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JLT     loop
	VZEROUPPER
	RET

// func scaleTo32Asm(dst *float32, x *float64, s float64, n int)
//
// dst[k] = float32(s·x[k]) for n a positive multiple of 4.
TEXT ·scaleTo32Asm(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	VBROADCASTSD s+16(FP), Y15
	MOVQ n+24(FP), CX
	XORQ AX, AX

loop32:
	VMULPD    (SI)(AX*8), Y15, Y0
	VCVTPD2PSY Y0, X0
	VMOVUPS   X0, (DI)(AX*4)
	ADDQ      $4, AX
	CMPQ      AX, CX
	JLT       loop32
	VZEROUPPER
	RET
