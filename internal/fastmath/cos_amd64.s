#include "textflag.h"

// Constants, each broadcast to four lanes (see cos.go for their meaning).
DATA cosk<>+0x00(SB)/8, $0x3fe45f306dc9c883   // 2/π
DATA cosk<>+0x08(SB)/8, $0x3ff921fb54400000   // pio2a
DATA cosk<>+0x10(SB)/8, $0x3dd0b4611a600000   // pio2b
DATA cosk<>+0x18(SB)/8, $0x3ba3198a2e000000   // pio2c
DATA cosk<>+0x20(SB)/8, $0x3fe0000000000000   // 0.5
DATA cosk<>+0x28(SB)/8, $0x3ff0000000000000   // 1.0
DATA cosk<>+0x30(SB)/8, $0x7fffffffffffffff   // |x| mask
DATA cosk<>+0x38(SB)/8, $0x4130000000000000   // MaxArg = 2^20
// cos coefficients c0..c5
DATA cosk<>+0x40(SB)/8, $0xbda8fa49a0861a9b
DATA cosk<>+0x48(SB)/8, $0x3e21ee9d7b4e3f05
DATA cosk<>+0x50(SB)/8, $0xbe927e4f7eac4bc6
DATA cosk<>+0x58(SB)/8, $0x3efa01a019c844f5
DATA cosk<>+0x60(SB)/8, $0xbf56c16c16c14f91
DATA cosk<>+0x68(SB)/8, $0x3fa555555555554b
// sin coefficients s0..s5
DATA cosk<>+0x70(SB)/8, $0x3de5d8fd1fd19ccd
DATA cosk<>+0x78(SB)/8, $0xbe5ae5e5a9291f5d
DATA cosk<>+0x80(SB)/8, $0x3ec71de3567d48a1
DATA cosk<>+0x88(SB)/8, $0xbf2a01a019bfdf03
DATA cosk<>+0x90(SB)/8, $0x3f8111111110f7d0
DATA cosk<>+0x98(SB)/8, $0xbfc5555555555548
// integer 1 (quadrant bit test)
DATA cosk<>+0xa0(SB)/8, $1
GLOBL cosk<>(SB), RODATA|NOPTR, $0xa8

#define K(off) cosk<>+off(SB)

// COSSETUP loads the constants COS4 keeps in registers (2/π, the |x| mask,
// MaxArg, integer 1) and clears the out-of-range accumulator Y10.
#define COSSETUP \
	VBROADCASTSD K(0x00), Y14; \
	VBROADCASTSD K(0x30), Y13; \
	VBROADCASTSD K(0x38), Y12; \
	VPBROADCASTQ K(0xa0), Y11; \
	VXORPD Y10, Y10, Y10;

// COS4 sets Y6 = s·cos(Y0) lane by lane (s in Y15) and ORs the lanes whose
// argument is out of range into Y10; those lanes of Y6 keep the argument.
// Clobbers Y1-Y9. Needs COSSETUP and s in Y15.
#define COS4 \
	VANDPD   Y13, Y0, Y1; \
	VCMPPD   $0x11, Y12, Y1, Y1; \
	VXORPD   Y13, Y13, Y9; \
	VCMPPD   $0, Y9, Y9, Y9; \
	VXORPD   Y9, Y1, Y9; \
	VORPD    Y9, Y10, Y10; \
	VMULPD   Y14, Y0, Y2; \
	VROUNDPD $8, Y2, Y2; \
	VBROADCASTSD K(0x08), Y3; \
	VMOVAPD  Y0, Y4; \
	VFNMADD231PD Y3, Y2, Y4; \
	VBROADCASTSD K(0x10), Y3; \
	VFNMADD231PD Y3, Y2, Y4; \
	VBROADCASTSD K(0x18), Y3; \
	VFNMADD231PD Y3, Y2, Y4; \
	VMULPD   Y4, Y4, Y5; \
	VBROADCASTSD K(0x40), Y6; \
	VBROADCASTSD K(0x48), Y3; \
	VFMADD213PD Y3, Y5, Y6; \
	VBROADCASTSD K(0x50), Y3; \
	VFMADD213PD Y3, Y5, Y6; \
	VBROADCASTSD K(0x58), Y3; \
	VFMADD213PD Y3, Y5, Y6; \
	VBROADCASTSD K(0x60), Y3; \
	VFMADD213PD Y3, Y5, Y6; \
	VBROADCASTSD K(0x68), Y3; \
	VFMADD213PD Y3, Y5, Y6; \
	VMULPD   Y5, Y5, Y7; \
	VMULPD   Y7, Y6, Y6; \
	VBROADCASTSD K(0x20), Y3; \
	VBROADCASTSD K(0x28), Y7; \
	VFNMADD231PD Y3, Y5, Y7; \
	VADDPD   Y6, Y7, Y6; \
	VBROADCASTSD K(0x70), Y7; \
	VBROADCASTSD K(0x78), Y3; \
	VFMADD213PD Y3, Y5, Y7; \
	VBROADCASTSD K(0x80), Y3; \
	VFMADD213PD Y3, Y5, Y7; \
	VBROADCASTSD K(0x88), Y3; \
	VFMADD213PD Y3, Y5, Y7; \
	VBROADCASTSD K(0x90), Y3; \
	VFMADD213PD Y3, Y5, Y7; \
	VBROADCASTSD K(0x98), Y3; \
	VFMADD213PD Y3, Y5, Y7; \
	VMULPD   Y5, Y4, Y8; \
	VFMADD213PD Y4, Y8, Y7; \
	VCVTPD2DQY Y2, X2; \
	VPMOVSXDQ X2, Y2; \
	VPAND    Y11, Y2, Y3; \
	VPCMPEQQ Y11, Y3, Y3; \
	VBLENDVPD Y3, Y7, Y6, Y6; \
	VPADDQ   Y11, Y2, Y2; \
	VPSRLQ   $1, Y2, Y2; \
	VPAND    Y11, Y2, Y2; \
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
