#include "textflag.h"

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
GLOBL expk<>(SB), RODATA|NOPTR, $0x78

#define K(off) expk<>+off(SB)

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
	VBROADCASTSD K(0x00), Y15        // log2e
	VBROADCASTSD K(0x08), Y14        // ln2hi
	VBROADCASTSD K(0x10), Y13        // ln2lo
	VBROADCASTSD K(0x50), Y12        // magic
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

	VMULPD  Y15, Y0, Y1              // x·log2e
	VROUNDPD $0, Y1, Y1              // k, nearest
	VMOVAPD Y0, Y2
	VFNMADD231PD Y14, Y1, Y2         // hi = x − k·ln2hi
	VMULPD  Y13, Y1, Y3              // lo = k·ln2lo
	VSUBPD  Y3, Y2, Y4               // r = hi − lo
	VMULPD  Y4, Y4, Y5               // t = r²

	VBROADCASTSD K(0x38), Y6         // P5
	VBROADCASTSD K(0x30), Y7
	VFMADD213PD Y7, Y5, Y6           // P4 + t·P5
	VBROADCASTSD K(0x28), Y7
	VFMADD213PD Y7, Y5, Y6           // P3 + t·(…)
	VBROADCASTSD K(0x20), Y7
	VFMADD213PD Y7, Y5, Y6           // P2 + t·(…)
	VBROADCASTSD K(0x18), Y7
	VFMADD213PD Y7, Y5, Y6           // P1 + t·(…)
	VMULPD  Y5, Y6, Y6               // t·(P1 + …)
	VSUBPD  Y6, Y4, Y6               // c = r − t·(…)

	VMULPD  Y6, Y4, Y7               // r·c
	VBROADCASTSD K(0x48), Y8         // 2
	VSUBPD  Y6, Y8, Y8               // 2 − c
	VDIVPD  Y8, Y7, Y7               // r·c/(2 − c)
	VSUBPD  Y7, Y3, Y7               // lo − r·c/(2 − c)
	VSUBPD  Y2, Y7, Y7               // (…) − hi
	VBROADCASTSD K(0x40), Y8         // 1
	VSUBPD  Y7, Y8, Y7               // y = 1 − (…)

	VADDPD  Y12, Y1, Y1              // k + magic: k in the low bits
	VPBROADCASTQ K(0x58), Y8
	VPSUBQ  Y8, Y1, Y1               // k as int64
	VPBROADCASTQ K(0x60), Y8
	VPADDQ  Y8, Y1, Y1               // k + 1023
	VPSLLQ  $52, Y1, Y1              // bits of 2^k
	VMULPD  Y1, Y7, Y7               // y·2^k

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
