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
	// Source is the file the data came from ("" for generated data).
	Source string
}

// Error is a problem with a data file. Row and Col are one-based as a user
// reads the file (0 when they do not apply).
type Error struct {
	Path     string
	Row, Col int
	Err      error
}

func (e *Error) Error() string {
	switch {
	case e.Row > 0 && e.Col > 0:
		return fmt.Sprintf("%s: row %d, column %d: %v", e.Path, e.Row, e.Col, e.Err)
	case e.Row > 0:
		return fmt.Sprintf("%s: row %d: %v", e.Path, e.Row, e.Err)
	default:
		return fmt.Sprintf("%s: %v", e.Path, e.Err)
	}
}

func (e *Error) Unwrap() error { return e.Err }
