#include "textflag.h"

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
	VBROADCASTSD (SI), Y4            // c
	VBROADCASTSD 8(SI), Y5           // s
	VMOVUPD (DI), Y2
	VMOVUPD 32(DI), Y3
	VMULPD Y0, Y4, Y6                // c·carry
	VMULPD Y1, Y4, Y7
	VFMADD231PD Y2, Y5, Y6           // + s·x
	VFMADD231PD Y3, Y5, Y7
	VMOVUPD Y6, (DX)
	VMOVUPD Y7, 32(DX)
	VMULPD Y0, Y5, Y0                // s·carry
	VMULPD Y1, Y5, Y1
	VFMSUB231PD Y2, Y4, Y0           // c·x − s·carry
	VFMSUB231PD Y3, Y4, Y1
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
	VMOVUPD 0(DI), Y10
	VMULPD Y0, Y8, Y11                // c·carry
	VFMADD231PD Y10, Y9, Y11           // + s·x
	VMOVUPD Y11, 0(DX)
	VMULPD Y0, Y9, Y0                // s·carry
	VFMSUB231PD Y10, Y8, Y0           // c·x − s·carry
	VMOVUPD 32(DI), Y12
	VMULPD Y1, Y8, Y13                // c·carry
	VFMADD231PD Y12, Y9, Y13           // + s·x
	VMOVUPD Y13, 32(DX)
	VMULPD Y1, Y9, Y1                // s·carry
	VFMSUB231PD Y12, Y8, Y1           // c·x − s·carry
	VMOVUPD 64(DI), Y14
	VMULPD Y2, Y8, Y15                // c·carry
	VFMADD231PD Y14, Y9, Y15           // + s·x
	VMOVUPD Y15, 64(DX)
	VMULPD Y2, Y9, Y2                // s·carry
	VFMSUB231PD Y14, Y8, Y2           // c·x − s·carry
	VMOVUPD 96(DI), Y10
	VMULPD Y3, Y8, Y11                // c·carry
	VFMADD231PD Y10, Y9, Y11           // + s·x
	VMOVUPD Y11, 96(DX)
	VMULPD Y3, Y9, Y3                // s·carry
	VFMSUB231PD Y10, Y8, Y3           // c·x − s·carry
	VMOVUPD 128(DI), Y12
	VMULPD Y4, Y8, Y13                // c·carry
	VFMADD231PD Y12, Y9, Y13           // + s·x
	VMOVUPD Y13, 128(DX)
	VMULPD Y4, Y9, Y4                // s·carry
	VFMSUB231PD Y12, Y8, Y4           // c·x − s·carry
	VMOVUPD 160(DI), Y14
	VMULPD Y5, Y8, Y15                // c·carry
	VFMADD231PD Y14, Y9, Y15           // + s·x
	VMOVUPD Y15, 160(DX)
	VMULPD Y5, Y9, Y5                // s·carry
	VFMSUB231PD Y14, Y8, Y5           // c·x − s·carry
	VMOVUPD 192(DI), Y10
	VMULPD Y6, Y8, Y11                // c·carry
	VFMADD231PD Y10, Y9, Y11           // + s·x
	VMOVUPD Y11, 192(DX)
	VMULPD Y6, Y9, Y6                // s·carry
	VFMSUB231PD Y10, Y8, Y6           // c·x − s·carry
	VMOVUPD 224(DI), Y12
	VMULPD Y7, Y8, Y13                // c·carry
	VFMADD231PD Y12, Y9, Y13           // + s·x
	VMOVUPD Y13, 224(DX)
	VMULPD Y7, Y9, Y7                // s·carry
	VFMSUB231PD Y12, Y8, Y7           // c·x − s·carry
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
