package method

import (
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
)

// nonZeroDoer is the fast path for sparse matrices (implemented by
// a james-bowman/sparse matrix).
type nonZeroDoer interface {
	DoNonZero(fn func(i, j int, v float64))
}

// CheckMatrix returns an error if X is empty (a *detector.EmptyError), has
// a feature count different from wantCols when wantCols > 0 (a
// *detector.DimError), or holds NaN or ±Inf (a *detector.ValueError
// naming row and column). Base calls it at the top of every fit and
// score, before any expensive work.
func CheckMatrix(X mat.Matrix, wantCols int) error {
	if err := checkDims(X, wantCols); err != nil {
		return err
	}
	var bad *detector.ValueError
	switch m := X.(type) {
	case mat.RawMatrixer:
		raw := m.RawMatrix()
		if allFinite(raw) {
			return nil
		}
		for i := 0; i < raw.Rows && bad == nil; i++ {
			row := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
			for j, v := range row {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					bad = &detector.ValueError{Row: i, Col: j, Value: v}
					break
				}
			}
		}
	case nonZeroDoer:
		m.DoNonZero(func(i, j int, v float64) {
			if bad == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
				bad = &detector.ValueError{Row: i, Col: j, Value: v}
			}
		})
	default:
		r, c := X.Dims()
		for i := 0; i < r && bad == nil; i++ {
			for j := 0; j < c; j++ {
				if v := X.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
					bad = &detector.ValueError{Row: i, Col: j, Value: v}
					break
				}
			}
		}
	}
	if bad != nil {
		return bad
	}
	return nil
}

// checkDims is CheckMatrix's check of X's dimensions alone.
func checkDims(X mat.Matrix, wantCols int) error {
	if X == nil {
		panic("method: nil matrix")
	}
	r, c := X.Dims()
	if r == 0 || c == 0 {
		return &detector.EmptyError{Rows: r, Cols: c}
	}
	if wantCols > 0 && c != wantCols {
		return &detector.DimError{Got: c, Want: wantCols}
	}
	return nil
}

// finiteSource is a Source that checks its values as it reads them
// (dataset's files: a NaN or an infinity is an error naming its file,
// row and column). A pass over one checks the chunks' dimensions only:
// the second look at every value cost about 10 ms a pass over 160 MB.
type finiteSource interface{ FiniteValues() bool }

// chunkChecker returns the check of a chunk of src: CheckMatrix, or its
// dimensions alone when src checks its own values.
func chunkChecker(src detector.Source) func(X mat.Matrix, wantCols int) error {
	if fs, ok := src.(finiteSource); ok && fs.FiniteValues() {
		return checkDims
	}
	return CheckMatrix
}

// zeros is the second operand of allFinite's screening dot products.
var zeros [1024]float64

// allFinite reports whether every element of raw is finite. A dot product
// with zeros is 0 for finite values and NaN as soon as one value is NaN or
// ±Inf (0·Inf = NaN), and gonum computes it with SIMD instructions, so the
// common case costs a fraction of a test per element; CheckMatrix locates
// the offending row and column only when this fails.
func allFinite(raw blas64.General) bool {
	check := func(v []float64) bool {
		for len(v) > 0 {
			k := min(len(v), len(zeros))
			if d := floats.Dot(v[:k], zeros[:k]); d != 0 {
				return false // NaN (d is 0 for finite values)
			}
			v = v[k:]
		}
		return true
	}
	if raw.Stride == raw.Cols {
		return check(raw.Data[:raw.Rows*raw.Cols])
	}
	for i := 0; i < raw.Rows; i++ {
		if !check(raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]) {
			return false
		}
	}
	return true
}

// Label turns scores into labels against a threshold: 1 when score > t.
func Label(dst []int, scores []float64, t float64) []int {
	if cap(dst) < len(scores) {
		dst = make([]int, len(scores))
	}
	dst = dst[:len(scores)]
	for i, s := range scores {
		if s > t {
			dst[i] = 1
		} else {
			dst[i] = 0
		}
	}
	return dst
}

// ScoreDst returns dst resized to n, allocating when its capacity is short.
// A Model may use it for scratch of one score per row.
func ScoreDst(dst []float64, n int) []float64 {
	if cap(dst) < n {
		return make([]float64, n)
	}
	return dst[:n]
}
