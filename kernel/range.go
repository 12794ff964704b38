package kernel

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/kernelad/anomaly/internal/csr"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"
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
	X = csr.Input(X)

	n, d := X.Dims()
	if n == 0 || d == 0 {
		return nil
	}
	var r rangeCheck
	r.limit = distLimit / math.Sqrt(float64(d))
	if m, ok := X.(*sparse.CSR); ok && int64(d) > int64(m.NNZ()) {
		// Wide sparse data (a LIBSVM file with millions of columns): only
		// the columns with a non-zero can fail, so keep their ranges in a
		// map, never d-long arrays.
		type colRange struct {
			lo, hi float64
			cnt    int
		}
		cols := map[int]*colRange{}
		m.DoNonZero(func(_, j int, v float64) {
			c := cols[j]
			if c == nil {
				c = &colRange{lo: v, hi: v}
				cols[j] = c
			}
			c.lo, c.hi, c.cnt = math.Min(c.lo, v), math.Max(c.hi, v), c.cnt+1
		})
		for _, j := range slices.Sorted(maps.Keys(cols)) { // the first failing column is named
			c := cols[j]
			if c.cnt < n { // an implicit zero
				c.lo, c.hi = math.Min(c.lo, 0), math.Max(c.hi, 0)
			}
			if err := r.col(j, c.lo, c.hi); err != nil {
				return err
			}
		}
		return r.done()
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
	for j := range lo {
		if err := r.col(j, lo[j], hi[j]); err != nil {
			return err
		}
	}
	return r.done()
}

// rangeCheck applies CheckRange's rules column by column.
type rangeCheck struct {
	limit          float64
	widest         int
	spread, lo, hi float64
}

// col checks one column's range [lo, hi].
func (r *rangeCheck) col(j int, lo, hi float64) error {
	s := hi - lo // +Inf when it overflows
	if math.Max(math.Abs(lo), math.Abs(hi)) > r.limit || s > r.limit {
		return &RangeError{Col: j, Min: lo, Max: hi}
	}
	if s > r.spread || (s == r.spread && s > 0 && j < r.widest) {
		r.widest, r.spread, r.lo, r.hi = j, s, lo, hi
	}
	return nil
}

// done applies the underflow rule once every column was seen.
func (r *rangeCheck) done() error {
	if r.spread > 0 && r.spread < underLimit {
		return &RangeError{Col: r.widest, Min: r.lo, Max: r.hi, Underflow: true}
	}
	return nil
}
