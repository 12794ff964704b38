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
	r, err := columnRanges(rowsOf(X))
	if err != nil {
		return err
	}
	return r.check()
}

// colRange is the range of one column's values and how many of them a
// sparse matrix stores.
type colRange struct {
	lo, hi float64
	cnt    int
}

// ranges are the columns' ranges over rows read in passes: d-long arrays,
// or for wide sparse rows (a LIBSVM file with millions of columns, where
// only the columns with a non-zero can fail) a map of the columns that
// hold one, never d-long arrays.
type ranges struct {
	n, d   int
	lo, hi []float64
	cnt    []int // stored values per column of sparse chunks
	wide   map[int]*colRange
	// implicit counts the rows of sparse chunks: a column with fewer
	// stored values holds an implicit zero.
	implicit int
}

// columnRanges reads the ranges of the columns of rs in one pass.
func columnRanges(rs Rows) (*ranges, error) {
	r := &ranges{n: rs.N, d: rs.Cols}
	err := rs.Pass(func(X mat.Matrix) error {
		r.add(csr.Input(X))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// add adds a chunk of rows.
func (r *ranges) add(X mat.Matrix) {
	rows, d := X.Dims()
	m, sp := X.(*sparse.CSR)
	if r.lo == nil && r.wide == nil {
		// The first chunk decides: wide when the columns outnumber the
		// non-zeros the rows are expected to hold.
		if sp && int64(d) > int64(m.NNZ())*int64(max(r.n, rows))/int64(max(rows, 1)) {
			r.wide = map[int]*colRange{}
		} else {
			r.lo, r.hi, r.cnt = make([]float64, d), make([]float64, d), make([]int, d)
			for j := range r.lo {
				r.lo[j], r.hi[j] = math.Inf(1), math.Inf(-1)
			}
		}
	}
	if sp {
		r.implicit += rows
		if r.wide != nil {
			m.DoNonZero(func(_, j int, v float64) {
				c := r.wide[j]
				if c == nil {
					c = &colRange{lo: v, hi: v}
					r.wide[j] = c
				}
				c.lo, c.hi, c.cnt = math.Min(c.lo, v), math.Max(c.hi, v), c.cnt+1
			})
			return
		}
		m.DoNonZero(func(_, j int, v float64) { r.value(j, v); r.cnt[j]++ })
		return
	}
	if r.wide != nil {
		// A dense chunk among wide sparse ones: its every value counts.
		for i := 0; i < rows; i++ {
			for j := 0; j < d; j++ {
				if v := X.At(i, j); v != 0 {
					c := r.wide[j]
					if c == nil {
						c = &colRange{lo: v, hi: v}
						r.wide[j] = c
					}
					c.lo, c.hi, c.cnt = math.Min(c.lo, v), math.Max(c.hi, v), c.cnt+1
				}
			}
		}
		r.implicit += rows
		return
	}
	if raw, ok := X.(mat.RawMatrixer); ok {
		m := raw.RawMatrix()
		for i := 0; i < rows; i++ {
			for j, v := range m.Data[i*m.Stride : i*m.Stride+d] {
				r.value(j, v)
			}
		}
		return
	}
	for i := 0; i < rows; i++ {
		for j := 0; j < d; j++ {
			r.value(j, X.At(i, j))
		}
	}
}

func (r *ranges) value(j int, v float64) {
	r.lo[j] = math.Min(r.lo[j], v)
	r.hi[j] = math.Max(r.hi[j], v)
}

// check applies CheckRange's rules, naming the first failing column.
func (r *ranges) check() error {
	if r.n == 0 || r.d == 0 {
		return nil
	}
	c := rangeCheck{limit: distLimit / math.Sqrt(float64(r.d))}
	if r.wide != nil {
		for _, j := range slices.Sorted(maps.Keys(r.wide)) {
			cr := r.wide[j]
			lo, hi := cr.lo, cr.hi
			if cr.cnt < r.implicit { // an implicit zero
				lo, hi = math.Min(lo, 0), math.Max(hi, 0)
			}
			if err := c.col(j, lo, hi); err != nil {
				return err
			}
		}
		return c.done()
	}
	for j := range r.lo {
		lo, hi := r.lo[j], r.hi[j]
		if r.cnt[j] < r.implicit {
			lo, hi = math.Min(lo, 0), math.Max(hi, 0)
		}
		if err := c.col(j, lo, hi); err != nil {
			return err
		}
	}
	return c.done()
}

// maxAbs returns the largest magnitude of the values (0 for none).
func (r *ranges) maxAbs() float64 {
	var m float64
	if r.wide != nil {
		for _, c := range r.wide {
			m = max(m, math.Abs(c.lo), math.Abs(c.hi))
		}
		return m
	}
	for j := range r.lo {
		if r.hi[j] >= r.lo[j] { // the column holds a stored value
			m = max(m, math.Abs(r.lo[j]), math.Abs(r.hi[j]))
		}
	}
	return m
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
