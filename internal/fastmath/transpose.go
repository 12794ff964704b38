package fastmath

// TransposeInt16 sets dst[i·ldd + k] = float64(src[k·lds + i]) for
// i < rows and k < 8: eight columns of a column-major int16 panel (column
// k at src[k·lds:]) into eight adjacent values of each row of a row-major
// float64 matrix (row i at dst[i·ldd:]). It is the inner step of reading
// a Fortran-order int16 .npy array (the ADBench layout) into rows. The
// conversion is exact. On amd64 with AVX2 the multiple-of-8 prefix of the
// rows runs in assembly: an 8 × 8 word transpose in registers, then
// sign extension and conversion, eight values at a time.
func TransposeInt16(dst []float64, ldd int, src []int16, lds int, rows int) {
	if rows <= 0 {
		return
	}
	_ = src[7*lds+rows-1]
	_ = dst[(rows-1)*ldd+7]
	i := 0
	if useAsm && rows >= 8 {
		i = rows &^ 7
		transposeI16Asm(&dst[0], ldd, &src[0], lds, i)
	}
	for ; i < rows; i++ {
		d := dst[i*ldd : i*ldd+8 : i*ldd+8]
		for k := range d {
			d[k] = float64(src[k*lds+i])
		}
	}
}
