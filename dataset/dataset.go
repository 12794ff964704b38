package dataset

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Dataset is a loaded data set: rows are samples.
type Dataset struct {
	// X is n × d: a *mat.Dense, or a *sparse.CSR for LIBSVM/SVMlight files.
	X mat.Matrix
	// Y holds one label per row (1 = anomaly, 0 = normal, −1 = unlabeled),
	// or is nil when the file has no labels.
	Y []int
	// Shape is the sample shape of tensor data (its product is d), taken from
	// an N-d array in a .npy/.npz file; nil for plain vectors.
	Shape []int
	// Columns names the features when the file has a header.
	Columns []string
	// ColumnNumbers holds, beside Columns, the one-based column of the
	// file each feature was read from, as errors number columns (the
	// label, a row index or a row identifier before it shifts it).
	ColumnNumbers []int
	// Source is the file the data came from ("" for generated data).
	Source string

	// Class holds the raw class of each row when the file's labels are a
	// class index rather than anomaly labels: the y array of an .npz whose X
	// is N-d (the tensor files), a y array or LIBSVM label column with values
	// other than {0, 1} / {−1, +1}, or a non-binary ARFF class attribute (the
	// index of the nominal value, 0-based). Y is nil when Class is set; use
	// NormalClass to turn a class into anomaly labels. −1 marks a missing class.
	Class []int
	// Split is the "split" array of an .npz file when present (the tensor
	// files: 0 = the original TRAIN part, 1 = TEST), nil otherwise.
	Split []int
	// Notes says what the reader chose that the user should know of (a
	// column it did not read, and why), one sentence each.
	Notes []string
}

// Error is a problem with a data file. Row and Col are one-based as a user
// reads the file (0 when they do not apply). For CSV the header is row 1;
// for .npy/.npz Row is the sample (first index of X) and Col the feature
// of the flattened row. Line is the one-based line of a LIBSVM or ARFF
// text file (0 when it does not apply).
type Error struct {
	Path     string
	Row, Col int
	Err      error
	Line     int
}

func (e *Error) Error() string {
	switch {
	case e.Row > 0 && e.Col > 0:
		return fmt.Sprintf("%s: row %d, column %d: %v", e.Path, e.Row, e.Col, e.Err)
	case e.Row > 0:
		return fmt.Sprintf("%s: row %d: %v", e.Path, e.Row, e.Err)
	case e.Line > 0:
		return fmt.Sprintf("%s: line %d: %v", e.Path, e.Line, e.Err)
	default:
		return fmt.Sprintf("%s: %v", e.Path, e.Err)
	}
}

func (e *Error) Unwrap() error { return e.Err }

// Rows returns the number of samples.
func (ds *Dataset) Rows() int {
	r, _ := ds.X.Dims()
	return r
}

// Cols returns the number of features (the product of Shape for tensors).
func (ds *Dataset) Cols() int {
	_, c := ds.X.Dims()
	return c
}

// Anomalies returns the number of rows labelled 1 (0 when Y is nil).
func (ds *Dataset) Anomalies() int {
	k := 0
	for _, v := range ds.Y {
		if v == 1 {
			k++
		}
	}
	return k
}

// NormalClass returns a shallow copy of ds whose Y marks rows of class
// normal as 0 (normal) and every other class as 1 (anomaly); rows with
// class −1 stay −1 (unlabeled). It needs ds.Class.
func NormalClass(ds *Dataset, normal int) (*Dataset, error) {
	if ds.Class == nil {
		return nil, fmt.Errorf("dataset: %s has no class labels", name(ds))
	}
	found := false
	y := make([]int, len(ds.Class))
	for i, c := range ds.Class {
		switch {
		case c == -1:
			y[i] = -1
		case c == normal:
			y[i] = 0
			found = true
		default:
			y[i] = 1
		}
	}
	if !found {
		return nil, fmt.Errorf("dataset: %s has no row of class %d", name(ds), normal)
	}
	out := *ds
	out.Y = y
	return &out, nil
}

func name(ds *Dataset) string {
	if ds.Source == "" {
		return "data set"
	}
	return ds.Source
}
