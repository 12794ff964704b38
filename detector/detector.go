package detector

import (
	"context"
	"errors"
	"fmt"

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
//
// Some methods' detectors do more: a semi-supervised one is a
// LabeledFitter (Method.Labeled), and expose's detectors have
// PartialFit(ctx, X) error, which folds more rows from a stream into a
// fitted model.
type Detector interface {
	Fit(ctx context.Context, X mat.Matrix) error
	Score(dst []float64, X mat.Matrix) ([]float64, error)
	Threshold() float64
}

// LabeledFitter is implemented by semi-supervised detectors (svdd's) that
// can use labels: y[i] = 1 marks a known anomaly, 0 a known normal row
// and −1 an unlabeled row.
type LabeledFitter interface {
	FitLabeled(ctx context.Context, X mat.Matrix, y []int) error
}

var (
	// ErrNotFitted is returned by Score and Save when the detector has
	// not been fitted.
	ErrNotFitted = errors.New("detector: model is not fitted; call Fit first")
	// ErrCorrupt is wrapped by Load's errors for files that are not
	// intact model files.
	ErrCorrupt = errors.New("not a valid model file")
	// ErrColumnsTooLong is wrapped by SetColumns' error for column names
	// that take more bytes than a model file's header holds, which it
	// does not record (the command line then saves the model without
	// names, with a note).
	ErrColumnsTooLong = errors.New("the column names take more bytes than a model file holds")
)

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

// ScoreError reports scores that are not numbers. Among training scores
// it is a defect of the method, never of the data. Among the scores of new
// rows it is what a kernel that grows without bound (poly, linear) gives a
// row so far outside the training data that its kernel values overflow
// float64; Score returns it rather than a NaN.
type ScoreError struct {
	Method   string
	Rows     []int // zero-based rows with a NaN score (at most 5)
	Count    int
	Training bool // the rows are training rows
}

func (e *ScoreError) Error() string {
	rows := make([]int, len(e.Rows))
	for i, r := range e.Rows {
		rows[i] = r + 1
	}
	list := fmt.Sprint(rows)
	if e.Count > len(rows) {
		list = list[:len(list)-1] + " …]"
	}
	if e.Training {
		return fmt.Sprintf("%s: %d training scores are NaN (rows %s): this is a defect of the method; please report it with the data", e.Method, e.Count, list)
	}
	// "data row": the rows of X from 1, which in a CSV file are its lines
	// after the header.
	what := fmt.Sprintf("data row %d cannot be scored: its kernel values overflow", rows[0])
	if e.Count > 1 {
		what = fmt.Sprintf("%d rows cannot be scored (data rows %s): their kernel values overflow", e.Count, list)
	}
	return fmt.Sprintf("%s: %s float64, as a kernel without a bound (poly, linear) does for rows far outside the training data; check their values and units, or use a bounded kernel (rbf, laplacian)", e.Method, what)
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
	t := d.Threshold()
	if cap(dst) < len(scores) {
		dst = make([]int, len(scores))
	}
	dst = dst[:len(scores)]
	for i, s := range scores {
		dst[i] = 0
		if s > t {
			dst[i] = 1
		}
	}
	return dst, nil
}
