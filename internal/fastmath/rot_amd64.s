#include "textflag.h"

// ROT4 rotates four lanes at byte offset off of the pair (lower row at
// DI, upper row at DX) with c in Y8 and s in Y9 and the upper row carried
// in car: the upper row gets s·x + c·car, car becomes c·x − s·car (x and
// t are scratch).
#define ROT4(off, car, x, t) \
	VMOVUPD     off(DI), x; \
	VMULPD      car, Y8, t; \
	VFMADD231PD x, Y9, t; \
	VMOVUPD     t, off(DX); \
	VMULPD      car, Y9, car; \
	VFMSUB231PD x, Y8, car

// func rotSweep8Asm(p *float64, ld int, cs *float64, n int)
//
// One QL sweep of n ≥ 1 plane rotations on eight columns of a row-major
// matrix of stride ld: p points at row hi, the rows below it are at
// p − ld, p − 2·ld, …; rotation t, with (c, s) = (cs[2t], cs[2t+1]),
// acts on rows hi − t − 1 and hi − t. Row hi − t is carried in Y0–Y1
// from one rotation to the next, so each row is loaded and stored once:
//
//	hi_row ← s·x + c·carry (stored), carry ← c·x − s·carry,
//
// with x the lower row; the last carry is stored to row hi − n.
TEXT ·rotSweep8Asm(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), DI
	MOVQ ld+8(FP), BX
	SHLQ $3, BX                      // bytes per row
	MOVQ cs+16(FP), SI
	MOVQ n+24(FP), CX
	VMOVUPD (DI), Y0
	VMOVUPD 32(DI), Y1

loop:
	MOVQ DI, DX                      // the upper row of the pair
	SUBQ BX, DI                      // the lower row
	VBROADCASTSD (SI), Y8            // c
	VBROADCASTSD 8(SI), Y9           // s
	ROT4(0, Y0, Y2, Y6)
	ROT4(32, Y1, Y3, Y7)
	ADDQ $16, SI
	DECQ CX
	JNZ  loop

	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VZEROUPPER
	RET

// func rotSweep32Asm(p *float64, ld int, cs *float64, n int)
//
// rotSweep8Asm on 32 columns: eight carried rows of four lanes, whose
// independent multiply and fused multiply-subtract chains hide each
// other's latency (with two, the chain c·x − s·carry bounds a rotation).
TEXT ·rotSweep32Asm(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), DI
	MOVQ ld+8(FP), BX
	SHLQ $3, BX
	MOVQ cs+16(FP), SI
	MOVQ n+24(FP), CX
	VMOVUPD 0(DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD 64(DI), Y2
	VMOVUPD 96(DI), Y3
	VMOVUPD 128(DI), Y4
	VMOVUPD 160(DI), Y5
	VMOVUPD 192(DI), Y6
	VMOVUPD 224(DI), Y7

loop32:
	MOVQ DI, DX
	SUBQ BX, DI
	VBROADCASTSD (SI), Y8
	VBROADCASTSD 8(SI), Y9
	ROT4(0, Y0, Y10, Y11)
	ROT4(32, Y1, Y12, Y13)
	ROT4(64, Y2, Y14, Y15)
	ROT4(96, Y3, Y10, Y11)
	ROT4(128, Y4, Y12, Y13)
	ROT4(160, Y5, Y14, Y15)
	ROT4(192, Y6, Y10, Y11)
	ROT4(224, Y7, Y12, Y13)
	ADDQ $16, SI
	DECQ CX
	JNZ  loop32

	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VMOVUPD Y4, 128(DI)
	VMOVUPD Y5, 160(DI)
	VMOVUPD Y6, 192(DI)
	VMOVUPD Y7, 224(DI)
	VZEROUPPER
	RET
