package detector

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Detector learns what normal data looks like and scores new rows.
//
// Fit trains on the rows of X (n samples × d features) and sets the
// threshold from the training scores. Score writes one score per row of X
// into dst, reusing it when its capacity is at least the number of rows, and
// returns the slice written; higher means more anomalous. Threshold returns
// the decision threshold set by Fit. A fitted detector is safe for concurrent
// Score calls.
type Detector interface {
	Fit(ctx context.Context, X mat.Matrix) error
	Score(dst []float64, X mat.Matrix) ([]float64, error)
	Threshold() float64
}

// PartialFitter is implemented by detectors that can update a fitted model
// with more rows from a stream.
type PartialFitter interface {
	PartialFit(ctx context.Context, X mat.Matrix) error
}

// LabeledFitter is implemented by semi-supervised detectors that can use
// labels: y[i] = 1 marks a known anomaly, 0 a known normal row and −1 an
// unlabeled row.
type LabeledFitter interface {
	FitLabeled(ctx context.Context, X mat.Matrix, y []int) error
}

// ProgressFunc receives progress reports from long fits: the stage name, the
// work done so far and the total (total ≤ 0 when unknown). It is called from
// the fitting goroutine and must return quickly.
type ProgressFunc func(stage string, done, total int)

// ErrNotFitted is returned by Score and Save when the detector has not been
// fitted.
var ErrNotFitted = errors.New("detector: model is not fitted; call Fit first")

// DimError reports a feature count that differs from the one the model was
// fitted on.
type DimError struct {
	Got, Want int
}

func (e *DimError) Error() string {
	return fmt.Sprintf("wrong feature count: data has %d columns, the model was fitted on %d", e.Got, e.Want)
}

// ValueError reports a non-finite value in the input. Row and Col are
// zero-based; error messages print them one-based, as a user reads a file.
type ValueError struct {
	Row, Col int
	Value    float64
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("row %d, column %d: value %v is not finite", e.Row+1, e.Col+1, e.Value)
}

// EmptyError reports input with no rows or no columns, or with fewer
// training rows than the method needs (MinRows > 0: a mean and a spread,
// a tree split).
type EmptyError struct {
	Rows, Cols int
	MinRows    int
}

func (e *EmptyError) Error() string {
	if e.Rows > 0 && e.Cols > 0 && e.MinRows > e.Rows {
		return fmt.Sprintf("need at least %d training rows, got %d", e.MinRows, e.Rows)
	}
	return fmt.Sprintf("empty data: %d rows × %d columns", e.Rows, e.Cols)
}

// nonZeroDoer is the fast path for sparse matrices (implemented by
// a james-bowman/sparse matrix).
type nonZeroDoer interface {
	DoNonZero(fn func(i, j int, v float64))
}

// CheckMatrix returns an error if X is empty, has a feature count different
// from wantCols (when wantCols > 0), or holds NaN or ±Inf. Detectors call it at
// the top of Fit and Score, before any expensive work.
func CheckMatrix(X mat.Matrix, wantCols int) error {
	if X == nil {
		panic("detector: nil matrix")
	}
	r, c := X.Dims()
	if r == 0 || c == 0 {
		return &EmptyError{Rows: r, Cols: c}
	}
	if wantCols > 0 && c != wantCols {
		return &DimError{Got: c, Want: wantCols}
	}
	var bad *ValueError
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
					bad = &ValueError{Row: i, Col: j, Value: v}
					break
				}
			}
		}
	case nonZeroDoer:
		m.DoNonZero(func(i, j int, v float64) {
			if bad == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
				bad = &ValueError{Row: i, Col: j, Value: v}
			}
		})
	default:
		for i := 0; i < r && bad == nil; i++ {
			for j := 0; j < c; j++ {
				if v := X.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
					bad = &ValueError{Row: i, Col: j, Value: v}
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

// Contamination validates a contamination rate, mapping 0 to the default
// 0.1. Valid rates lie in (0, 0.5].
func Contamination(c float64) (float64, error) {
	if c == 0 {
		return DefaultContamination, nil
	}
	if !(c > 0 && c <= 0.5) {
		return 0, fmt.Errorf("contamination %v is out of range: it must be in (0, 0.5]", c)
	}
	return c, nil
}

// DefaultContamination is the share of training rows flagged when a method's
// configuration leaves the contamination rate at zero.
const DefaultContamination = 0.1

// ThresholdFromScores returns the (1−c) quantile of the training scores, with
// linear interpolation between order statistics (NumPy's default percentile).
// Rows scoring strictly above it are anomalies. Infinite scores are allowed
// (finite-support kernel densities produce +Inf): when the quantile itself
// is +Inf the threshold is the largest finite score, so every infinitely
// anomalous row is flagged; the threshold is never infinite. NaN scores make it panic,
// since a detector must never produce them. scores is not modified.
func ThresholdFromScores(scores []float64, c float64) float64 {
	if len(scores) == 0 {
		panic("detector: no training scores")
	}
	if !(c > 0 && c <= 0.5) {
		panic(fmt.Sprintf("detector: contamination %v out of (0, 0.5]", c))
	}
	return thresholdOfSorted(sortedScores(scores), c)
}

// sortedScores returns a sorted copy of training scores, panicking on a
// NaN (Fit reports NaN scores before it sets a threshold).
func sortedScores(scores []float64) []float64 {
	s := append([]float64(nil), scores...)
	for _, v := range s {
		if math.IsNaN(v) {
			panic("detector: NaN training score")
		}
	}
	sort.Float64s(s)
	return s
}

// thresholdOfSorted is ThresholdFromScores of scores already sorted.
func thresholdOfSorted(s []float64, c float64) float64 {
	pos := (1 - c) * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := lo + 1
	if hi >= len(s) {
		return s[len(s)-1]
	}
	frac := pos - float64(lo)
	a, b := s[lo], s[hi]
	var q float64
	switch {
	case frac == 0 || a == b:
		q = a
	case math.IsInf(b, 1):
		q = a
	case math.IsInf(a, -1):
		q = b
	default:
		q = a + frac*(b-a)
	}
	if math.IsInf(q, 1) {
		// More than a share c of the rows score +Inf (finite-support
		// densities): flag all of them by thresholding at the largest
		// finite score.
		q = -math.MaxFloat64
		for i := len(s) - 1; i >= 0; i-- {
			if !math.IsInf(s[i], 1) {
				q = s[i]
				break
			}
		}
	}
	if math.IsInf(q, -1) {
		// Most rows score −Inf: every finite score is above this, the
		// −Inf rows are not, as with a threshold of −Inf, and the
		// threshold stays a finite number a model file can hold.
		q = -math.MaxFloat64
	}
	return q
}

// Predict scores X with d and labels each row: 1 when its score is greater
// than d's threshold, 0 otherwise; dst is reused when it has the
// capacity. Scores and threshold come from one fitted model, even while
// another goroutine refits d. It returns ctx.Err() soon after ctx ends.
func Predict(ctx context.Context, dst []int, d Detector, X mat.Matrix) ([]int, error) {
	if p, ok := d.(interface {
		PredictContext(ctx context.Context, dst []int, X mat.Matrix) ([]int, error)
	}); ok {
		return p.PredictContext(ctx, dst, X)
	}
	scores, err := ScoreContext(ctx, d, nil, X)
	if err != nil {
		return nil, err
	}
	return Label(dst, scores, d.Threshold()), nil
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

// CentredCopy returns a copy of the rows of X less their mean, and that
// mean: each column summed down the rows in order, then divided by the
// number of rows.
func CentredCopy(X mat.Matrix) (*mat.Dense, []float64) {
	xc := mat.DenseCopyOf(X)
	n, d := xc.Dims()
	mean := make([]float64, d)
	for i := 0; i < n; i++ {
		for j, v := range xc.RawRowView(i) {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	for i := 0; i < n; i++ {
		row := xc.RawRowView(i)
		for j := range row {
			row[j] -= mean[j]
		}
	}
	return xc, mean
}

// ScoreDst returns dst resized to n, allocating when its capacity is short.
// Detectors use it at the top of Score.
func ScoreDst(dst []float64, n int) []float64 {
	if cap(dst) < n {
		return make([]float64, n)
	}
	return dst[:n]
}
