#include "textflag.h"
#include "hsum_amd64.h"

// Constants, each stored four times (one 32-byte vector) so that the
// reduction and polynomial steps take them as memory operands (see
// cos.go for their meaning).
DATA cosv<>+0x000(SB)/8, $0x3fd45f306dc9c883   // 1/π
DATA cosv<>+0x008(SB)/8, $0x3fd45f306dc9c883
DATA cosv<>+0x010(SB)/8, $0x3fd45f306dc9c883
DATA cosv<>+0x018(SB)/8, $0x3fd45f306dc9c883
DATA cosv<>+0x020(SB)/8, $0x4338000000000000   // round = 1.5·2⁵²
DATA cosv<>+0x028(SB)/8, $0x4338000000000000
DATA cosv<>+0x030(SB)/8, $0x4338000000000000
DATA cosv<>+0x038(SB)/8, $0x4338000000000000
DATA cosv<>+0x040(SB)/8, $0x400921fb54400000   // pia
DATA cosv<>+0x048(SB)/8, $0x400921fb54400000
DATA cosv<>+0x050(SB)/8, $0x400921fb54400000
DATA cosv<>+0x058(SB)/8, $0x400921fb54400000
DATA cosv<>+0x060(SB)/8, $0x3de0b4611a600000   // pib
DATA cosv<>+0x068(SB)/8, $0x3de0b4611a600000
DATA cosv<>+0x070(SB)/8, $0x3de0b4611a600000
DATA cosv<>+0x078(SB)/8, $0x3de0b4611a600000
DATA cosv<>+0x080(SB)/8, $0x3bb3198a2e000000   // pic
DATA cosv<>+0x088(SB)/8, $0x3bb3198a2e000000
DATA cosv<>+0x090(SB)/8, $0x3bb3198a2e000000
DATA cosv<>+0x098(SB)/8, $0x3bb3198a2e000000
DATA cosv<>+0x0a0(SB)/8, $0x7fffffffffffffff   // |x| mask
DATA cosv<>+0x0a8(SB)/8, $0x7fffffffffffffff
DATA cosv<>+0x0b0(SB)/8, $0x7fffffffffffffff
DATA cosv<>+0x0b8(SB)/8, $0x7fffffffffffffff
DATA cosv<>+0x0c0(SB)/8, $0x4130000000000000   // MaxArg = 2²⁰
DATA cosv<>+0x0c8(SB)/8, $0x4130000000000000
DATA cosv<>+0x0d0(SB)/8, $0x4130000000000000
DATA cosv<>+0x0d8(SB)/8, $0x4130000000000000
DATA cosv<>+0x0e0(SB)/8, $0x3ff0000000000000   // 1
DATA cosv<>+0x0e8(SB)/8, $0x3ff0000000000000
DATA cosv<>+0x0f0(SB)/8, $0x3ff0000000000000
DATA cosv<>+0x0f8(SB)/8, $0x3ff0000000000000
DATA cosv<>+0x100(SB)/8, $0xbfe0000000000000   // t1
DATA cosv<>+0x108(SB)/8, $0xbfe0000000000000
DATA cosv<>+0x110(SB)/8, $0xbfe0000000000000
DATA cosv<>+0x118(SB)/8, $0xbfe0000000000000
DATA cosv<>+0x120(SB)/8, $0x3fa5555555555555   // t2
DATA cosv<>+0x128(SB)/8, $0x3fa5555555555555
DATA cosv<>+0x130(SB)/8, $0x3fa5555555555555
DATA cosv<>+0x138(SB)/8, $0x3fa5555555555555
DATA cosv<>+0x140(SB)/8, $0xbf56c16c16c16c17   // t3
DATA cosv<>+0x148(SB)/8, $0xbf56c16c16c16c17
DATA cosv<>+0x150(SB)/8, $0xbf56c16c16c16c17
DATA cosv<>+0x158(SB)/8, $0xbf56c16c16c16c17
DATA cosv<>+0x160(SB)/8, $0x3efa01a01a01a01a   // t4
DATA cosv<>+0x168(SB)/8, $0x3efa01a01a01a01a
DATA cosv<>+0x170(SB)/8, $0x3efa01a01a01a01a
DATA cosv<>+0x178(SB)/8, $0x3efa01a01a01a01a
DATA cosv<>+0x180(SB)/8, $0xbe927e4fb7789f5c   // t5
DATA cosv<>+0x188(SB)/8, $0xbe927e4fb7789f5c
DATA cosv<>+0x190(SB)/8, $0xbe927e4fb7789f5c
DATA cosv<>+0x198(SB)/8, $0xbe927e4fb7789f5c
DATA cosv<>+0x1a0(SB)/8, $0x3e21eed8eff8d898   // t6
DATA cosv<>+0x1a8(SB)/8, $0x3e21eed8eff8d898
DATA cosv<>+0x1b0(SB)/8, $0x3e21eed8eff8d898
DATA cosv<>+0x1b8(SB)/8, $0x3e21eed8eff8d898
DATA cosv<>+0x1c0(SB)/8, $0xbda93974a8c07c9d   // t7
DATA cosv<>+0x1c8(SB)/8, $0xbda93974a8c07c9d
DATA cosv<>+0x1d0(SB)/8, $0xbda93974a8c07c9d
DATA cosv<>+0x1d8(SB)/8, $0xbda93974a8c07c9d
DATA cosv<>+0x1e0(SB)/8, $0x3d2ae7f3e733b81f   // t8
DATA cosv<>+0x1e8(SB)/8, $0x3d2ae7f3e733b81f
DATA cosv<>+0x1f0(SB)/8, $0x3d2ae7f3e733b81f
DATA cosv<>+0x1f8(SB)/8, $0x3d2ae7f3e733b81f
DATA cosv<>+0x200(SB)/8, $0xbca6827863b97d97   // t9
DATA cosv<>+0x208(SB)/8, $0xbca6827863b97d97
DATA cosv<>+0x210(SB)/8, $0xbca6827863b97d97
DATA cosv<>+0x218(SB)/8, $0xbca6827863b97d97
DATA cosv<>+0x220(SB)/8, $0x3c1e542ba4020225   // t10
DATA cosv<>+0x228(SB)/8, $0x3c1e542ba4020225
DATA cosv<>+0x230(SB)/8, $0x3c1e542ba4020225
DATA cosv<>+0x238(SB)/8, $0x3c1e542ba4020225
GLOBL cosv<>(SB), RODATA|NOPTR, $0x240

// COSSETUP loads the constants COS4 keeps in registers (1/π, MaxArg, the
// rounding constant) and clears the out-of-range accumulator Y10. Y13 is
// left to the kernels (cosAddDotAsm's sum).
#define COSSETUP \
	VMOVUPD cosv<>+0x000(SB), Y14; \
	VMOVUPD cosv<>+0x0c0(SB), Y12; \
	VMOVUPD cosv<>+0x020(SB), Y11; \
	VXORPD Y10, Y10, Y10;

// COS4 sets Y6 = s·cos(Y0) lane by lane (s in Y15) and ORs the lanes whose
// argument is out of range (|x| not below MaxArg, or NaN: the unordered
// "not less than" compare) into Y10; those lanes of Y6 keep the argument.
// x·(1/π) + round leaves k = round(x/π) in the low mantissa bits (its
// parity in bit 0); r = x − kπ by a three-part Cody–Waite reduction;
// cos x = (−1)^k·cos r with cos r from its Taylor polynomial in z = r².
// Clobbers Y1-Y6 and Y9. Needs COSSETUP and s in Y15.
#define COS4 \
	VANDPD   cosv<>+0x0a0(SB), Y0, Y1; \
	VCMPPD   $0x15, Y12, Y1, Y9; \
	VORPD    Y9, Y10, Y10; \
	VMOVAPD  Y11, Y2; \
	VFMADD231PD Y14, Y0, Y2; \
	VSUBPD   Y11, Y2, Y3; \
	VMOVAPD  Y0, Y4; \
	VFNMADD231PD cosv<>+0x040(SB), Y3, Y4; \
	VFNMADD231PD cosv<>+0x060(SB), Y3, Y4; \
	VFNMADD231PD cosv<>+0x080(SB), Y3, Y4; \
	VMULPD   Y4, Y4, Y5; \
	VMOVUPD  cosv<>+0x220(SB), Y6; \
	VFMADD213PD cosv<>+0x200(SB), Y5, Y6; \
	VFMADD213PD cosv<>+0x1e0(SB), Y5, Y6; \
	VFMADD213PD cosv<>+0x1c0(SB), Y5, Y6; \
	VFMADD213PD cosv<>+0x1a0(SB), Y5, Y6; \
	VFMADD213PD cosv<>+0x180(SB), Y5, Y6; \
	VFMADD213PD cosv<>+0x160(SB), Y5, Y6; \
	VFMADD213PD cosv<>+0x140(SB), Y5, Y6; \
	VFMADD213PD cosv<>+0x120(SB), Y5, Y6; \
	VFMADD213PD cosv<>+0x100(SB), Y5, Y6; \
	VFMADD213PD cosv<>+0x0e0(SB), Y5, Y6; \
	VPSLLQ   $63, Y2, Y2; \
	VXORPD   Y2, Y6, Y6; \
	VMULPD   Y15, Y6, Y6; \
	VBLENDVPD Y9, Y0, Y6, Y6;


// func cosAddAsm(dst, b []float64, s float64) (outOfRange bool)
TEXT ·cosAddAsm(SB), NOSPLIT, $0-57
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ b_base+24(FP), SI
	VBROADCASTSD s+48(FP), Y15
	COSSETUP
	SHRQ $2, CX
	JZ   done

loop:
	VMOVUPD (DI), Y0
	VADDPD  (SI), Y0, Y0             // x = dst + b
	COS4
	VMOVUPD  Y6, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	DECQ CX
	JNZ  loop

done:
	VMOVMSKPD Y10, AX
	TESTQ AX, AX
	SETNE outOfRange+56(FP)
	VZEROUPPER
	RET

// func cosAffineAsm(dst, x, wt []float64, stride int, b []float64, s float64) (outOfRange bool)
// dst[j] = s·cos(b[j] + Σ_l x[l]·wt[l·stride + j]) for len(dst) a multiple
// of four; out-of-range lanes keep their argument, as in cosAddAsm.
TEXT ·cosAffineAsm(SB), NOSPLIT, $0-113
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ x_base+24(FP), R8
	MOVQ x_len+32(FP), R9
	MOVQ wt_base+48(FP), R10
	MOVQ stride+72(FP), R11
	SHLQ $3, R11                     // stride in bytes
	MOVQ b_base+80(FP), SI
	VBROADCASTSD s+104(FP), Y15
	COSSETUP
	SHRQ $2, CX
	JZ   adone

aloop:
	VMOVUPD (SI), Y0                 // acc = b[j:j+4]
	MOVQ R10, R12                    // &wt[0·stride + j]
	MOVQ R8, R13                     // &x[0]
	MOVQ R9, R14
ainner:
	VBROADCASTSD (R13), Y1
	VFMADD231PD (R12), Y1, Y0        // acc += x[l]·wt[l·stride + j:+4]
	ADDQ $8, R13
	ADDQ R11, R12
	DECQ R14
	JNZ  ainner
	COS4
	VMOVUPD Y6, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	ADDQ $32, R10
	DECQ CX
	JNZ  aloop

adone:
	VMOVMSKPD Y10, AX
	TESTQ AX, AX
	SETNE outOfRange+112(FP)
	VZEROUPPER
	RET

// func cosAddDotAsm(dst, b, w []float64, s float64) (dot float64, outOfRange bool)
// dst[j] = s·cos(dst[j] + b[j]) as cosAddAsm, and dot = Σ_j dst[j]·w[j]
// over the lanes in range (out-of-range lanes add 0), four partial sums in
// Y13, in the same pass.
TEXT ·cosAddDotAsm(SB), NOSPLIT, $0-89
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ b_base+24(FP), SI
	MOVQ w_base+48(FP), DX
	VBROADCASTSD s+72(FP), Y15
	COSSETUP
	VXORPD Y13, Y13, Y13
	SHRQ $2, CX
	JZ   ddone

dloop:
	VMOVUPD (DI), Y0
	VADDPD  (SI), Y0, Y0             // x = dst + b
	COS4
	VMOVUPD  Y6, (DI)
	VANDNPD  Y6, Y9, Y7              // lanes out of range: 0
	VFMADD231PD (DX), Y7, Y13        // dot += z·w
	ADDQ $32, DI
	ADDQ $32, SI
	ADDQ $32, DX
	DECQ CX
	JNZ  dloop

ddone:
	HSUM(Y13, X13, X1)
	VMOVSD       X13, dot+80(FP)
	VMOVMSKPD Y10, AX
	TESTQ AX, AX
	SETNE outOfRange+88(FP)
	VZEROUPPER
	RET
