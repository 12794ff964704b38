package fastmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTransposeInt16 checks TransposeInt16 against its definition on
// every int16 extreme and random words, for row counts around the
// multiple-of-8 prefix and strides wider than the data, and that it
// writes nothing outside its eight columns.
func TestTransposeInt16(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, rows := range []int{1, 7, 8, 9, 16, 31, 64, 203} {
		lds, ldd := rows+3, 11
		src := make([]int16, 8*lds)
		for i := range src {
			switch i % 5 {
			case 0:
				src[i] = math.MinInt16
			case 1:
				src[i] = math.MaxInt16
			default:
				src[i] = int16(rng.Uint32())
			}
		}
		dst := make([]float64, rows*ldd)
		for i := range dst {
			dst[i] = -0.5 // a value no int16 converts to
		}
		TransposeInt16(dst, ldd, src, lds, rows)
		for i := range rows {
			for c := range ldd {
				want := -0.5
				if c < 8 {
					want = float64(src[c*lds+i])
				}
				if got := dst[i*ldd+c]; got != want {
					t.Fatalf("rows=%d: dst[%d][%d] = %v, want %v", rows, i, c, got, want)
				}
			}
		}
	}
}
