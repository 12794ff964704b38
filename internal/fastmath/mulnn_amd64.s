#include "textflag.h"

// ROW2 broadcasts the A element at addr and adds it times the two B
// vectors (Y8, Y9) to the row's accumulators lo and hi.
#define ROW2(addr, t, lo, hi) \
	VBROADCASTSD addr, t; \
	VFMADD231PD  Y8, t, lo; \
	VFMADD231PD  Y9, t, hi

// ROW2SEQ is ROW2 with a separate multiply and add (products in Y14, Y15):
// the rounding of a plain loop s += a·b.
#define ROW2SEQ(addr, t, lo, hi) \
	VBROADCASTSD addr, t; \
	VMULPD       Y8, t, Y14; \
	VADDPD       Y14, lo, lo; \
	VMULPD       Y9, t, Y15; \
	VADDPD       Y15, hi, hi

// MULNN is the body of both kernels, ROW the update of one row's sums.
// MULNNARGS loads the arguments both block shapes share: c (DI) and its
// stride in bytes (R8), a (SI) and its stride (R9) and 3·lda (BX), and b's
// stride (R10).
#define MULNNARGS \
	MOVQ c+0(FP), DI; \
	MOVQ ldc+8(FP), R8; \
	SHLQ $3, R8; \
	MOVQ a+16(FP), SI; \
	MOVQ lda+24(FP), R9; \
	SHLQ $3, R9; \
	LEAQ (R9)(R9*2), BX; \
	MOVQ ldb+40(FP), R10; \
	SHLQ $3, R10

#define MULNN(ROW) \
	MULNNARGS; \
	MOVQ b+32(FP), DX; \
	MOVQ n+48(FP), R11; \
	SHLQ $3, R11; \
	MOVQ k+56(FP), CX; \
	XORQ R14, R14; \
cols: \
	VXORPD Y0, Y0, Y0; \
	VXORPD Y1, Y1, Y1; \
	VXORPD Y2, Y2, Y2; \
	VXORPD Y3, Y3, Y3; \
	VXORPD Y4, Y4, Y4; \
	VXORPD Y5, Y5, Y5; \
	VXORPD Y6, Y6, Y6; \
	VXORPD Y7, Y7, Y7; \
	LEAQ (DX)(R14*1), R12; \
	MOVQ SI, R13; \
	MOVQ CX, AX; \
terms: \
	VMOVUPD (R12), Y8; \
	VMOVUPD 32(R12), Y9; \
	ROW((R13), Y10, Y0, Y1); \
	ROW((R13)(R9*1), Y11, Y2, Y3); \
	ROW((R13)(R9*2), Y12, Y4, Y5); \
	ROW((R13)(BX*1), Y13, Y6, Y7); \
	ADDQ $8, R13; \
	ADDQ R10, R12; \
	DECQ AX; \
	JNZ  terms; \
	LEAQ (DI)(R14*1), R12; \
	VMOVUPD Y0, (R12); \
	VMOVUPD Y1, 32(R12); \
	VMOVUPD Y2, (R12)(R8*1); \
	VMOVUPD Y3, 32(R12)(R8*1); \
	VMOVUPD Y4, (R12)(R8*2); \
	VMOVUPD Y5, 32(R12)(R8*2); \
	LEAQ (R12)(R8*2), R13; \
	VMOVUPD Y6, (R13)(R8*1); \
	VMOVUPD Y7, 32(R13)(R8*1); \
	ADDQ $64, R14; \
	CMPQ R14, R11; \
	JLT  cols; \
	VZEROUPPER; \
	RET

// ROW1 and ROW1SEQ are ROW2 and ROW2SEQ for one B vector (Y8).
#define ROW1(addr, t, acc) \
	VBROADCASTSD addr, t; \
	VFMADD231PD  Y8, t, acc

#define ROW1SEQ(addr, t, acc) \
	VBROADCASTSD addr, t; \
	VMULPD       Y8, t, Y14; \
	VADDPD       Y14, acc, acc

// MULNN4 is MULNN for four columns: one vector of sums per row (Y0…Y3).
#define MULNN4(ROW) \
	MULNNARGS; \
	MOVQ b+32(FP), R12; \
	MOVQ k+48(FP), AX; \
	VXORPD Y0, Y0, Y0; \
	VXORPD Y1, Y1, Y1; \
	VXORPD Y2, Y2, Y2; \
	VXORPD Y3, Y3, Y3; \
	MOVQ SI, R13; \
terms4: \
	VMOVUPD (R12), Y8; \
	ROW((R13), Y10, Y0); \
	ROW((R13)(R9*1), Y11, Y1); \
	ROW((R13)(R9*2), Y12, Y2); \
	ROW((R13)(BX*1), Y13, Y3); \
	ADDQ $8, R13; \
	ADDQ R10, R12; \
	DECQ AX; \
	JNZ  terms4; \
	VMOVUPD Y0, (DI); \
	VMOVUPD Y1, (DI)(R8*1); \
	VMOVUPD Y2, (DI)(R8*2); \
	LEAQ (DI)(R8*2), R13; \
	VMOVUPD Y3, (R13)(R8*1); \
	VZEROUPPER; \
	RET

// MULNN1X16(OP) is the body of the one-row kernels: c[j] = Σ_l a[l]·b[l·ldb+j]
// for j < n, n a positive multiple of 16, l = 0…k−1 in order; sixteen
// columns (four independent sums) at a time, each a[l] broadcast once for
// them. OP(mem, bcast, acc, tmp) adds a[l]·b to one accumulator.
#define MULNN1X16(OP) \
	MOVQ c+0(FP), DI \
	MOVQ a+8(FP), SI \
	MOVQ b+16(FP), DX \
	MOVQ ldb+24(FP), R8 \
	SHLQ $3, R8 \
	MOVQ n+32(FP), CX \
	MOVQ k+40(FP), R9 \
col16: \
	VXORPD Y0, Y0, Y0 \
	VXORPD Y1, Y1, Y1 \
	VXORPD Y2, Y2, Y2 \
	VXORPD Y3, Y3, Y3 \
	MOVQ DX, R10 \
	MOVQ SI, R11 \
	MOVQ R9, R12 \
term16: \
	VBROADCASTSD (R11), Y4 \
	OP((R10), Y4, Y0, Y5) \
	OP(32(R10), Y4, Y1, Y6) \
	OP(64(R10), Y4, Y2, Y7) \
	OP(96(R10), Y4, Y3, Y8) \
	ADDQ $8, R11 \
	ADDQ R8, R10 \
	DECQ R12 \
	JNZ  term16 \
	VMOVUPD Y0, (DI) \
	VMOVUPD Y1, 32(DI) \
	VMOVUPD Y2, 64(DI) \
	VMOVUPD Y3, 96(DI) \
	ADDQ $128, DI \
	ADDQ $128, DX \
	SUBQ $16, CX \
	JNZ  col16 \
	VZEROUPPER \
	RET

#define FMA1(mem, bc, acc, tmp) VFMADD231PD mem, bc, acc
#define SEQ1(mem, bc, acc, tmp) VMULPD mem, bc, tmp; VADDPD tmp, acc, acc


// func mulNN4x8Asm(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, n, k int)
//
// For rows i = 0…3 and columns j = 0…n−1 (n a positive multiple of 8):
//   c[i·ldc+j] = Σ_{l<k} a[i·lda+l]·b[l·ldb+j],
// eight columns at a time: 4 × 8 sums in Y0…Y7 (registers: c DI, its
// stride R8, a SI and R13, its stride R9 and 3·lda BX, b DX and R12, its
// stride R10, the column offset R14 up to n R11, k CX and its count AX),
// one fused multiply-add per term from zero, stored once.
TEXT ·mulNN4x8Asm(SB), NOSPLIT, $0-64
	MULNN(ROW2)

// func mulNNSeq4x8Asm(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, n, k int)
//
// mulNN4x8Asm with a multiply and an add per term.
TEXT ·mulNNSeq4x8Asm(SB), NOSPLIT, $0-64
	MULNN(ROW2SEQ)

// func mulNN4x4Asm(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, k int)
//
// mulNN4x4Asm sets the 4 × 4 block c[i·ldc+j] = Σ_{l<k} a[i·lda+l]·b[l·ldb+j]
// with one fused multiply-add per term (k ≥ 1).
TEXT ·mulNN4x4Asm(SB), NOSPLIT, $0-56
	MULNN4(ROW1)

// func mulNNSeq4x4Asm(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, k int)
//
// mulNN4x4Asm with a multiply and an add per term.
TEXT ·mulNNSeq4x4Asm(SB), NOSPLIT, $0-56
	MULNN4(ROW1SEQ)

// func mulNN1x16Asm(c, a, b *float64, ldb, n, k int)
TEXT ·mulNN1x16Asm(SB), NOSPLIT, $0-48
	MULNN1X16(FMA1)

// func mulNNSeq1x16Asm(c, a, b *float64, ldb, n, k int)
TEXT ·mulNNSeq1x16Asm(SB), NOSPLIT, $0-48
	MULNN1X16(SEQ1)
