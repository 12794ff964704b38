package scale

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/james-bowman/sparse"
	"github.com/kernelad/anomaly/internal/csr"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Names of the scale stage's rules.
const (
	Standardize = "standard" // centre on the mean, divide by the standard deviation
	RobustRule  = "robust"   // centre on the median, divide by the IQR (std where it is 0)
	MinMaxRule  = "minmax"   // shift by the minimum, divide by the range
	ChannelRule = "channel"  // standardise per index of a tensor sample's first mode
	None        = "none"     // leave the data as it is
)

// Rules lists the scale stage's rules.
var Rules = []string{Standardize, RobustRule, MinMaxRule, ChannelRule, None}

// Stage is a fitted scale stage: the per-column affine map
// x'_j = (x_j − Offset_j) / Divisor_j that a detector applies to every
// matrix it fits on or scores. Offset is nil when the stage does not
// centre (rule none, or a stage fitted on sparse input, which it keeps
// sparse). Every Divisor_j is finite and > 0.
type Stage struct {
	Rule    string
	Offset  []float64
	Divisor []float64
	// Index, when set, lists the columns (ascending) that Divisor covers,
	// and Width is the number of columns the stage was fitted on: a stage
	// fitted on sparse data with more columns than non-zeros (a LIBSVM
	// file with millions of feature indices) keeps only the columns that
	// hold a value; every other column was all zeros in training and is
	// divided by 1. Such a stage never centres (Offset is nil).
	Index []int
	Width int
}

// Fit learns the stage of a rule from the training rows X. On sparse input
// the stage scales without centring (standard: x/std, robust: x/IQR,
// minmax: x/range), so that its output stays sparse.
func Fit(rule string, X mat.Matrix) (*Stage, error) {
	return FitShape(rule, X, nil)
}

// FitShape is Fit for rows that hold tensor samples of the given shape
// (row-major, as package tensor flattens them). Only rule channel reads
// the shape: every entry whose first-mode index is i (a sensor's or EEG
// channel's readings at every time) shares the mean and the standard
// deviation of all those entries over the training rows, so a channel
// keeps its waveform and channels of different units become comparable.
// With no shape (vector samples) channel is standard: each column is its
// own channel. (method.NewBase refuses channel for a method that reads
// vector rows, where asking for it means the user expects channels.)
func FitShape(rule string, X mat.Matrix, shape []int) (*Stage, error) {
	return FitRows(rule, rowsOf(X), shape)
}

// FitRows is FitShape on rows read in passes (a file read chunk by
// chunk): the stage equals FitShape's on the same rows in one matrix, bit
// for bit. Rules standard, minmax and channel make two or three passes
// and hold a few values per column; rule robust holds every value (its
// quantiles need them), so a large data set is better fitted on a sample.
func FitRows(rule string, rs Rows, shape []int) (*Stage, error) {
	if rule == ChannelRule {
		return fitChannels(rs, shape)
	}
	if rs.Sparse && rule != None {
		compact, cols, err := sparseColumns(rs)
		if err != nil {
			return nil, err
		}
		if compact {
			return fitCompact(rule, rs, cols)
		}
	}
	sp := rs.Sparse
	s := &Stage{Rule: rule}
	switch rule {
	case None:
		return s, nil
	case Standardize:
		sc := Standard{NoCenter: sp}
		if err := sc.fit(rs); err != nil {
			return nil, err
		}
		s.Offset, s.Divisor = sc.Mean, sc.Std
	case RobustRule:
		sc := Robust{NoCenter: sp}
		if err := sc.fit(rs); err != nil {
			return nil, err
		}
		s.Offset, s.Divisor = sc.Median, sc.Spread
	case MinMaxRule:
		lo, hi, err := columnRange(rs)
		if err != nil {
			return nil, err
		}
		s.Offset, s.Divisor = lo, make([]float64, len(lo))
		for j := range lo {
			s.Divisor[j] = hi[j] - lo[j] // 0 (constant column) becomes 1 below
		}
	default:
		return nil, fmt.Errorf("scale: unknown rule %q (want one of standard, robust, minmax, channel, none)", rule)
	}
	if sp {
		s.Offset = nil
	}
	for j, v := range s.Divisor {
		switch {
		case math.IsInf(v, 1):
			// A spread past float64's range (values near both
			// ±MaxFloat64): the largest one there is, not 1, which
			// sent the column's values out of range.
			s.Divisor[j] = math.MaxFloat64
		case !(v > 0):
			s.Divisor[j] = 1
		}
	}
	return s, s.check(-1)
}

// sparseColumns reports whether sparse rows have more columns than
// non-zeros (a LIBSVM file with millions of feature indices), and then
// the columns that hold a value, ascending.
func sparseColumns(rs Rows) (compact bool, cols []int, err error) {
	var nnz int64
	seen := map[int]bool{}
	err = rs.Pass(func(X mat.Matrix) error {
		m := X.(*sparse.CSR)
		nnz += int64(m.NNZ())
		m.DoNonZero(func(_, j int, _ float64) { seen[j] = true })
		return nil
	})
	if err != nil || int64(rs.Cols) <= nnz {
		return false, nil, err
	}
	return true, slices.Sorted(maps.Keys(seen)), nil
}

// fitCompact fits the stage of wide sparse rows on their touched columns
// cols only: memory and the saved stage grow with the non-zeros, not
// with the column count.
func fitCompact(rule string, rs Rows, cols []int) (*Stage, error) {
	if len(cols) == 0 {
		return &Stage{Rule: rule, Divisor: []float64{}, Index: []int{}, Width: rs.Cols}, nil
	}
	mapped := Rows{Cols: len(cols), Sparse: true, Pass: func(fn func(X mat.Matrix) error) error {
		return rs.Pass(func(X mat.Matrix) error {
			return fn(mapCSR(X.(*sparse.CSR), len(cols), func(j int, v float64) (int, float64) {
				pos, _ := slices.BinarySearch(cols, j)
				return pos, v
			}))
		})
	}}
	st, err := FitRows(rule, mapped, nil)
	if err != nil {
		return nil, err
	}
	st.Index, st.Width = cols, rs.Cols
	return st, nil
}

// Cols returns the number of columns the stage was fitted on (0 for rule
// none, which applies to any width).
func (s *Stage) Cols() int {
	if s.Index != nil {
		return s.Width
	}
	return len(s.Divisor)
}

// divisor returns the divisor of column j.
func (s *Stage) divisor(j int) float64 {
	if s.Index == nil {
		return s.Divisor[j]
	}
	if k, ok := slices.BinarySearch(s.Index, j); ok {
		return s.Divisor[k]
	}
	return 1
}

// check validates a stage read back from a file; cols ≥ 0 also checks its
// width.
func (s *Stage) check(cols int) error {
	if s.Rule == None {
		if s.Offset != nil || s.Divisor != nil {
			return fmt.Errorf("scale: rule none holds a map")
		}
		return nil
	}
	switch s.Rule {
	case Standardize, RobustRule, MinMaxRule, ChannelRule:
	default:
		return fmt.Errorf("scale: unknown rule %q", s.Rule)
	}
	if s.Index != nil {
		if s.Offset != nil || len(s.Index) != len(s.Divisor) || s.Width < 1 {
			return fmt.Errorf("scale: stage arrays have inconsistent sizes")
		}
		for k, j := range s.Index {
			if j < 0 || j >= s.Width || (k > 0 && j <= s.Index[k-1]) {
				return fmt.Errorf("scale: stage column list is not ascending within %d columns", s.Width)
			}
		}
	} else if len(s.Divisor) == 0 || (s.Offset != nil && len(s.Offset) != len(s.Divisor)) {
		return fmt.Errorf("scale: stage arrays have inconsistent sizes")
	}
	if cols >= 0 && s.Cols() != cols {
		return fmt.Errorf("scale: stage fitted on %d columns, model on %d", s.Cols(), cols)
	}
	for j, v := range s.Divisor {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("scale: divisor of column %d is %v", j+1, v)
		}
		if s.Offset != nil && (math.IsNaN(s.Offset[j]) || math.IsInf(s.Offset[j], 0)) {
			return fmt.Errorf("scale: offset of column %d is %v", j+1, s.Offset[j])
		}
	}
	return nil
}

// Check validates a stage read back from a model file fitted on cols
// columns.
func (s *Stage) Check(cols int) error { return s.check(cols) }

// Apply returns the scaled X: X itself for rule none, a new CSR matrix for
// sparse X when the stage does not centre, and a new dense matrix
// otherwise. A value that the map sends beyond the float64 range
// saturates at ±MaxFloat64; a non-finite value is an error naming its row
// and column (1-based).
func (s *Stage) Apply(X mat.Matrix) (mat.Matrix, error) {
	return s.ApplyInto(nil, X)
}

// ApplyInto is Apply writing a dense result into buf, which it resizes
// (reusing its storage when that is large enough), so that a pass over
// the chunks of a large data set scales them without allocating; nil buf
// allocates. The result is X itself for rule none and a new CSR matrix
// for sparse X when the stage does not centre.
func (s *Stage) ApplyInto(buf *mat.Dense, X mat.Matrix) (mat.Matrix, error) {
	X = csr.Input(X)

	if s.Rule == None {
		return X, nil
	}
	r, c := X.Dims()
	if c != s.Cols() {
		return nil, fmt.Errorf("scale: stage fitted on %d columns, the data has %d", s.Cols(), c)
	}
	f := func(j int, v float64) float64 { return saturate(v/s.divisor(j), v) }
	if s.Offset != nil {
		f = func(j int, v float64) float64 {
			o, d := s.Offset[j], s.Divisor[j]
			if r := (v - o) / d; !math.IsInf(r, 0) {
				return r
			}
			// v − o overflowed (a value near −MaxFloat64 and an
			// offset of the other sign); divided first, it may
			// not.
			return saturate(v/d-o/d, v)
		}
	}
	var out mat.Matrix
	if sp, ok := X.(*sparse.CSR); ok && s.Offset == nil {
		m, err := scaleCSR(sp, c, f, "stage")
		if err != nil {
			return nil, err
		}
		out = m
	} else {
		if buf == nil {
			buf = new(mat.Dense)
		}
		reuseAs(buf, r, c)
		if x, ok := X.(mat.RawMatrixer); ok && s.Offset != nil {
			if err := s.centre(buf, x.RawMatrix(), f); err != nil {
				return nil, err
			}
			return buf, nil
		}
		if err := affine(buf, X, c, f, "stage"); err != nil {
			return nil, err
		}
		out = buf
	}
	if err := finite(out); err != nil {
		return nil, err
	}
	return out, nil
}

// centre writes the dense rows x, centred and divided as f maps them,
// into dst (x's size; it may be x itself), in one pass: (v − o)/d for
// every value where that is finite, f (which saturates) where it is not,
// and a *RangeError for the first value f leaves non-finite, as finite
// reports it. The copy, a call of f per value and finite's pass that
// affine makes took 6 ns a value.
func (s *Stage) centre(dst *mat.Dense, x blas64.General, f func(j int, v float64) float64) error {
	d := dst.RawMatrix()
	for i := 0; i < x.Rows; i++ {
		src := x.Data[i*x.Stride : i*x.Stride+x.Cols]
		out := d.Data[i*d.Stride : i*d.Stride+x.Cols]
		for j, v := range src {
			r := (v - s.Offset[j]) / s.Divisor[j]
			if math.IsInf(r, 0) || r != r {
				if r = f(j, v); math.IsInf(r, 0) || r != r {
					return &RangeError{Row: i, Col: j}
				}
			}
			out[j] = r
		}
	}
	return nil
}

// reuseAs makes buf an r × c matrix, on its own storage when that holds
// r·c values.
func reuseAs(buf *mat.Dense, r, c int) {
	if !buf.IsEmpty() {
		raw := buf.RawMatrix()
		if cap(raw.Data) >= r*c {
			buf.SetRawMatrix(blas64.General{Rows: r, Cols: c, Stride: c, Data: raw.Data[:r*c]})
			return
		}
		buf.Reset()
	}
	buf.ReuseAs(r, c)
}

// saturate maps a scaled value past float64's range to ±MaxFloat64: the
// row lies more than 1e308 training spreads out, as far as a float64 can
// say, and every method scores it as far (kde and gauss +Inf), where the
// whole file was refused for it.
// A non-finite input x stays as it is, for finite to report.
func saturate(v, x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return v
	}
	return max(min(v, math.MaxFloat64), -math.MaxFloat64)
}

// RangeError reports a value that scaling sent beyond the float64 range.
type RangeError struct {
	Row, Col int // zero-based
}

func (e *RangeError) Error() string {
	return fmt.Sprintf("data row %d, column %d: the value is out of the float64 range after scaling (it lies more than 1e308 training spreads from the training data)", e.Row+1, e.Col+1)
}

func finite(m mat.Matrix) error {
	check := func(i, j int, v float64) error {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return &RangeError{Row: i, Col: j}
		}
		return nil
	}
	switch x := m.(type) {
	case *sparse.CSR:
		var err error
		x.DoNonZero(func(i, j int, v float64) {
			if err == nil {
				err = check(i, j, v)
			}
		})
		return err
	case *mat.Dense:
		raw := x.RawMatrix()
		for i := 0; i < raw.Rows; i++ {
			for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
				if err := check(i, j, v); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// fitChannels fits rule channel: per index of the first mode of shape,
// the mean and population standard deviation of the entries with that
// index over every row (a constant channel is centred and left unscaled).
// Sparse input and a missing shape fall back to rule standard.
func fitChannels(rs Rows, shape []int) (*Stage, error) {
	c := rs.Cols
	if len(shape) < 2 || rs.Sparse {
		st, err := FitRows(Standardize, rs, nil)
		if err == nil {
			st.Rule = ChannelRule
		}
		return st, err
	}
	prod := 1
	for _, k := range shape {
		prod *= k
	}
	if prod != c {
		return nil, fmt.Errorf("scale: sample shape %v holds %d values, the rows %d", shape, prod, c)
	}
	block := c / shape[0]
	n, _, err := columnStats(rs, func(int, float64) {})
	if err != nil {
		return nil, err
	}
	cnt := float64(n * block)
	// A channel whose values reach 2^500 is summed in units of its
	// largest magnitude, so that values near ±MaxFloat64 (or whose
	// squares pass it, 1e154 and up) overflow neither the mean nor the
	// variance; other channels in units of 1, bit for bit as before.
	unit := make([]float64, shape[0])
	if _, _, err := columnStats(rs, func(j int, v float64) { unit[j/block] = max(unit[j/block], math.Abs(v)) }); err != nil {
		return nil, err
	}
	for ch, u := range unit {
		if !(u >= 0x1p500) {
			unit[ch] = 1
		}
	}
	mean := make([]float64, shape[0])
	if _, _, err := columnStats(rs, func(j int, v float64) { mean[j/block] += v / unit[j/block] }); err != nil {
		return nil, err
	}
	for ch := range mean {
		mean[ch] = mean[ch] / cnt * unit[ch]
	}
	ss := make([]float64, shape[0])
	if _, _, err := columnStats(rs, func(j int, v float64) {
		u := unit[j/block]
		d := v/u - mean[j/block]/u
		ss[j/block] += d * d
	}); err != nil {
		return nil, err
	}
	st := &Stage{Rule: ChannelRule, Offset: make([]float64, c), Divisor: make([]float64, c)}
	for j := range st.Offset {
		ch := j / block
		sd := math.Sqrt(ss[ch]/cnt) * unit[ch]
		switch {
		case math.IsInf(sd, 1):
			sd = math.MaxFloat64
		case !(sd > 0):
			sd = 1
		}
		st.Offset[j], st.Divisor[j] = mean[ch], sd
	}
	return st, st.check(-1)
}
