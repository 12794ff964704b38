package kernel

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/sparse"
)

// Limits of CheckRange: a column whose values reach beyond distLimit/√d
// in magnitude or spread can make a squared distance or a dot product of
// rows exceed the float64 range (about 1.8e308); data whose every column
// spreads less than underLimit makes squared distances underflow (below
// about 2.2e-308) into subnormal numbers or zero.
const (
	distLimit  = 1e154
	underLimit = 1e-150
)

// RangeError reports a column whose values are too large, or data whose
// values are too close together, for squared distances and dot products
// between rows to stay within the float64 range.
type RangeError struct {
	Col      int // zero-based; printed one-based
	Min, Max float64
	// Underflow is true when every column spreads less than about 1e-150
	// (Col is the widest); false when column Col is too large.
	Underflow bool
}

func (e *RangeError) Error() string {
	if e.Underflow {
		return fmt.Sprintf("column %d ranges from %g to %g, and no column spreads more: squared distances between rows underflow float64; scale the features (scale=standard) or change their units", e.Col+1, e.Min, e.Max)
	}
	return fmt.Sprintf("column %d ranges from %g to %g: squared distances between rows overflow float64; scale the features (scale=standard) or change their units", e.Col+1, e.Min, e.Max)
}

// CheckRange returns a *RangeError when the values of X would take squared
// distances or dot products between its rows out of the float64 range: a
// column whose largest magnitude or spread passes 1e154/√d, or every
// column spreading less than 1e-150 (constant columns excepted: data that
// is constant everywhere is fine). Kernel methods call it before fitting on
// data that no scale stage has standardised. A *sparse.CSR is read through
// its non-zeros.
func CheckRange(X mat.Matrix) error {
	n, d := X.Dims()
	if n == 0 || d == 0 {
		return nil
	}
	lo := make([]float64, d)
	hi := make([]float64, d)
	for j := range lo {
		lo[j], hi[j] = math.Inf(1), math.Inf(-1)
	}
	add := func(j int, v float64) {
		lo[j] = math.Min(lo[j], v)
		hi[j] = math.Max(hi[j], v)
	}
	switch m := X.(type) {
	case *sparse.CSR:
		cnt := make([]int, d)
		m.DoNonZero(func(_, j int, v float64) { add(j, v); cnt[j]++ })
		for j, c := range cnt {
			if c < n {
				add(j, 0)
			}
		}
	case mat.RawMatrixer:
		raw := m.RawMatrix()
		for i := 0; i < n; i++ {
			for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+d] {
				add(j, v)
			}
		}
	default:
		for i := 0; i < n; i++ {
			for j := 0; j < d; j++ {
				add(j, X.At(i, j))
			}
		}
	}
	limit := distLimit / math.Sqrt(float64(d))
	widest, spread := 0, 0.0
	for j := range lo {
		s := hi[j] - lo[j] // +Inf when it overflows
		if math.Max(math.Abs(lo[j]), math.Abs(hi[j])) > limit || s > limit {
			return &RangeError{Col: j, Min: lo[j], Max: hi[j]}
		}
		if s > spread {
			widest, spread = j, s
		}
	}
	if spread > 0 && spread < underLimit {
		return &RangeError{Col: widest, Min: lo[widest], Max: hi[widest], Underflow: true}
	}
	return nil
}
