package scale

import (
	"math"
	"slices"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"
)

// Robust scales each column by its interquartile range and, unless
// NoCenter, centres it on its median: x' = (x − median_j) / IQR_j, with the
// quartiles of NumPy's default (linear) percentile, as scikit-learn's
// RobustScaler. Where a column's IQR is 0 (more than half its values
// equal) the population standard deviation is used instead, and where that
// is 0 too (a constant column) 1: a column is never blown up by a zero
// spread. scikit-learn would use 1 for every zero IQR. Implicit zeros of a
// sparse column count as values, as in scikit-learn.
type Robust struct {
	NoCenter bool
	Median   []float64 // per-column median of the training data
	Spread   []float64 // IQR, or the standard deviation where the IQR is 0, or 1
}

var _ Scaler = (*Robust)(nil)

// percentile is NumPy's linear-interpolation percentile of sorted v, q in
// [0, 100].
func percentile(sorted []float64, q float64) float64 {
	pos := q / 100 * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	if lo >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	f := pos - float64(lo)
	a, b := sorted[lo], sorted[lo+1]
	if f == 0 || a == b {
		return a
	}
	if d := b - a; !math.IsInf(d, 0) {
		return a + f*d
	}
	// a and b of opposite signs near ±MaxFloat64: their difference
	// overflows, the weighted sum does not.
	return a*(1-f) + b*f
}

// Fit computes the per-column median, quartiles and, where needed, the
// standard deviation.
func (s *Robust) Fit(X mat.Matrix) error { return s.fit(rowsOf(X)) }

// fit is Fit on rows read in passes; it holds every value of the rows
// (a quantile needs them all).
func (s *Robust) fit(rs Rows) error {
	c := rs.Cols
	cols := make([][]float64, c)
	_, zeros, err := columnStats(rs, func(j int, v float64) { cols[j] = append(cols[j], v) })
	if err != nil {
		return err
	}
	var sd *Standard
	s.Median, s.Spread = make([]float64, c), make([]float64, c)
	for j, v := range cols {
		if zeros != nil {
			v = append(v, make([]float64, zeros[j])...)
		}
		slices.Sort(v)
		s.Median[j] = percentile(v, 50)
		iqr := percentile(v, 75) - percentile(v, 25)
		if math.IsInf(iqr, 0) { // quartiles of opposite sign near ±MaxFloat64
			iqr = 2 * (percentile(v, 75)/2 - percentile(v, 25)/2)
		}
		if iqr == 0 || math.IsInf(iqr, 0) {
			if sd == nil {
				sd = &Standard{NoCenter: true}
				if err := sd.fit(rs); err != nil {
					return err
				}
			}
			iqr = sd.Std[j]
		}
		s.Spread[j] = iqr
		cols[j] = nil
	}
	return nil
}

// Transform writes (X − Median) / Spread (or X / Spread with NoCenter) into
// dst.
func (s *Robust) Transform(dst *mat.Dense, X mat.Matrix) error {
	return centreDivide(dst, X, s.NoCenter, s.Median, s.Spread, "Robust")
}

// TransformSparse scales a CSR matrix by 1/Spread without densifying it; it
// needs NoCenter.
func (s *Robust) TransformSparse(X *sparse.CSR) (*sparse.CSR, error) {
	return divideSparse(X, s.NoCenter, s.Spread, "Robust")
}
