#include "textflag.h"
#include "hsum_amd64.h"

// Constants of math.Exp (FreeBSD's e_exp.c), each broadcast to four lanes.
DATA expk<>+0x00(SB)/8, $0x3ff71547652b82fe   // log2(e)
DATA expk<>+0x08(SB)/8, $0x3fe62e42fee00000   // ln2 hi
DATA expk<>+0x10(SB)/8, $0x3dea39ef35793c76   // ln2 lo
DATA expk<>+0x18(SB)/8, $0x3fc555555555553e   // P1
DATA expk<>+0x20(SB)/8, $0xbf66c16c16bebd93   // P2
DATA expk<>+0x28(SB)/8, $0x3f11566aaf25de2c   // P3
DATA expk<>+0x30(SB)/8, $0xbebbbd41c5d26bf1   // P4
DATA expk<>+0x38(SB)/8, $0x3e66376972bea4d0   // P5
DATA expk<>+0x40(SB)/8, $0x3ff0000000000000   // 1
DATA expk<>+0x48(SB)/8, $0x4000000000000000   // 2
DATA expk<>+0x50(SB)/8, $0x4338000000000000   // 1.5·2^52 (round-to-integer magic)
DATA expk<>+0x58(SB)/8, $0x4338000000000000   // its bits, as an integer
DATA expk<>+0x60(SB)/8, $1023                 // exponent bias
DATA expk<>+0x68(SB)/8, $0xc086232bdd7abcd2   // −708.39641853226408 (below: subnormal)
DATA expk<>+0x70(SB)/8, $0x40862e42fefa39ef   // 709.78271289338397 (above: overflow)
DATA expk<>+0x78(SB)/8, $0x7ff0000000000000   // +Inf
GLOBL expk<>(SB), RODATA|NOPTR, $0x80

#define K(off) expk<>+off(SB)

// EXPSETUP loads the constants EXP4 keeps in registers: log2(e) (Y15), ln2
// in two parts (Y14, Y13) and the round-to-integer constant (Y12).
#define EXPSETUP \
	VBROADCASTSD K(0x00), Y15; \
	VBROADCASTSD K(0x08), Y14; \
	VBROADCASTSD K(0x10), Y13; \
	VBROADCASTSD K(0x50), Y12

// EXP4 sets Y7 = e^Y0 lane by lane for arguments in [−708.396, 709.78]
// (other lanes undefined), with math.Exp's algorithm (see expAsm).
// Needs EXPSETUP; clobbers Y1-Y8.
#define EXP4 \
	VMULPD  Y15, Y0, Y1; \
	VROUNDPD $0, Y1, Y1; \
	VMOVAPD Y0, Y2; \
	VFNMADD231PD Y14, Y1, Y2; \
	VMULPD  Y13, Y1, Y3; \
	VSUBPD  Y3, Y2, Y4; \
	VMULPD  Y4, Y4, Y5; \
	VBROADCASTSD K(0x38), Y6; \
	VBROADCASTSD K(0x30), Y7; \
	VFMADD213PD Y7, Y5, Y6; \
	VBROADCASTSD K(0x28), Y7; \
	VFMADD213PD Y7, Y5, Y6; \
	VBROADCASTSD K(0x20), Y7; \
	VFMADD213PD Y7, Y5, Y6; \
	VBROADCASTSD K(0x18), Y7; \
	VFMADD213PD Y7, Y5, Y6; \
	VMULPD  Y5, Y6, Y6; \
	VSUBPD  Y6, Y4, Y6; \
	VMULPD  Y6, Y4, Y7; \
	VBROADCASTSD K(0x48), Y8; \
	VSUBPD  Y6, Y8, Y8; \
	VDIVPD  Y8, Y7, Y7; \
	VSUBPD  Y7, Y3, Y7; \
	VSUBPD  Y2, Y7, Y7; \
	VBROADCASTSD K(0x40), Y8; \
	VSUBPD  Y7, Y8, Y7; \
	VADDPD  Y12, Y1, Y1; \
	VPBROADCASTQ K(0x58), Y8; \
	VPSUBQ  Y8, Y1, Y1; \
	VPBROADCASTQ K(0x60), Y8; \
	VPADDQ  Y8, Y1, Y1; \
	VPSLLQ  $52, Y1, Y1; \
	VMULPD  Y1, Y7, Y7

// func expAsm(dst, src []float64) (outOfRange bool)
//
// dst[j] = e^src[j] for len(dst) a multiple of four (len(src) ≥ len(dst)),
// with math.Exp's reduction and rational approximation: k = round(x/ln2),
// r = (x − k·ln2hi) − k·ln2lo, c = r − t(P1 + t(P2 + t(P3 + t(P4 + tP5))))
// with t = r², e^r = 1 − ((lo − r·c/(2 − c)) − hi), times 2^k. A lane with
// x below −708.396 (a subnormal or zero result), above 709.78 or NaN is
// left undefined and the function returns true; the caller recomputes it.
TEXT ·expAsm(SB), NOSPLIT, $0-49
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ src_base+24(FP), SI
	EXPSETUP
	VBROADCASTSD K(0x68), Y11        // lower limit
	VBROADCASTSD K(0x70), Y10        // upper limit
	VXORPD       Y9, Y9, Y9          // out-of-range lanes seen
	SHRQ $2, CX
	JZ   done

loop:
	VMOVUPD (SI), Y0                 // x
	VCMPPD  $1, Y11, Y0, Y1          // x < lower (false for NaN)
	VCMPPD  $30, Y10, Y0, Y2         // x > upper, ordered (GT_OQ)
	VORPD   Y2, Y1, Y1
	VCMPPD  $3, Y0, Y0, Y2           // unordered: NaN
	VORPD   Y2, Y1, Y1
	VORPD   Y1, Y9, Y9

	EXP4

	VMOVUPD Y7, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	DECQ CX
	JNZ  loop

done:
	VMOVMSKPD Y9, AX
	TESTQ AX, AX
	SETNE outOfRange+48(FP)
	VZEROUPPER
	RET

// func expSumAsm(x []float64, shift, scale float64) (sum float64)
//
// sum = Σ_j e^{(x[j] − shift)·scale} over len(x), a multiple of four, with
// EXP4: arguments below −708.396 add 0 (their e^a is below 2⁻¹⁰²², nothing
// beside a term of 1), above 709.78 add +Inf, NaN adds NaN. Four partial
// sums, added at the end.
TEXT ·expSumAsm(SB), NOSPLIT, $0-48
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	VBROADCASTSD shift+24(FP), Y9
	VBROADCASTSD scale+32(FP), Y10
	EXPSETUP
	VXORPD       Y11, Y11, Y11       // the sums
	SHRQ $2, CX
	JZ   sdone

sloop:
	VMOVUPD (SI), Y0
	VSUBPD  Y9, Y0, Y0               // x − shift
	VMULPD  Y10, Y0, Y0              // a = (x − shift)·scale
	EXP4
	VBROADCASTSD K(0x68), Y1         // lower limit
	VCMPPD  $1, Y1, Y0, Y2           // a < lower (false for NaN)
	VANDNPD Y7, Y2, Y7               // those lanes add 0
	VBROADCASTSD K(0x70), Y1         // upper limit
	VCMPPD  $30, Y1, Y0, Y2          // a > upper, ordered
	VBROADCASTSD K(0x78), Y1         // +Inf
	VBLENDVPD Y2, Y1, Y7, Y7         // those lanes add +Inf
	VADDPD  Y7, Y11, Y11
	ADDQ $32, SI
	DECQ CX
	JNZ  sloop

sdone:
	HSUM(Y11, X11, X1)
	VMOVSD       X11, sum+40(FP)
	VZEROUPPER
	RET
