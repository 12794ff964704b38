package detector

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Source is a data set read in chunks of rows instead of held in memory:
// a file larger than memory (package dataset opens every format it reads
// as one) or a stream. Fit and Score take matrices; FitSource and
// ScoreSource take a Source, and a detector then holds no more of the
// data than its method needs (a sample, a sum, or the rows it keeps).
//
// A Source that can also read rows by index (an .npy file, a stored
// .npz member) has the method
//
//	ReadRows(ctx context.Context, idx []int) (mat.Matrix, error)
//
// returning the rows idx (each in [0, rows), in any order, repeats
// allowed) as a new len(idx) × cols matrix: a fit that needs a sample
// of a large file then draws its rows without reading the rest
// (method.RowReader).
type Source interface {
	// Dims returns the number of rows, or −1 while the source cannot
	// know it (a text file not yet read to its end), and the number of
	// columns.
	Dims() (rows, cols int)
	// Sparse reports whether the chunks are *sparse.CSR matrices (a
	// LIBSVM file) rather than *mat.Dense.
	Sparse() bool
	// Scan calls fn with the rows in order, in chunks of at most max
	// rows: X holds rows lo, lo+1, … of the data, as a *mat.Dense or a
	// *sparse.CSR that is valid only during the call. Scan stops at the
	// first error of fn and returns it, and returns ctx.Err() when ctx
	// ends. Every call reads from the first row; a source that can be
	// read once (standard input) returns an error from a second call
	// (dataset.ErrOnePass).
	// A chunk's values are as the source holds them: Fit and Score
	// check them (NaN and ±Inf are errors naming row and column).
	Scan(ctx context.Context, max int, fn func(lo int, X mat.Matrix) error) error
}

// FitSource fits d on the rows of src, reading them as its method needs
// them (every row, a pass at a time, or a sample): d then holds no more
// of the data than its method keeps, and the model equals Fit's on the
// same rows in one matrix. A detector that cannot read a Source (one not
// built by New or Load) is an error.
func FitSource(ctx context.Context, d Detector, src Source) error {
	f, ok := d.(interface {
		FitSource(ctx context.Context, src Source) error
	})
	if !ok {
		return fmt.Errorf("detector: %T cannot fit from a Source", d)
	}
	return f.FitSource(ctx, src)
}

// ScoreContext is d.Score that stops early, returning ctx.Err(), when ctx
// ends (for a detector that cannot be cancelled, one not built by New or
// Load, ctx is checked before and after the whole Score).
func ScoreContext(ctx context.Context, d Detector, dst []float64, X mat.Matrix) ([]float64, error) {
	if s, ok := d.(interface {
		ScoreContext(ctx context.Context, dst []float64, X mat.Matrix) ([]float64, error)
	}); ok {
		return s.ScoreContext(ctx, dst, X)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out, err := d.Score(dst, X)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ScoreSource scores the rows of src with d, a chunk of rows at a time,
// and calls fn with each chunk's scores in row order: lo is the chunk's
// first row and scores is valid only during the call. Reading the next
// chunk overlaps scoring this one; memory holds the model and a few
// chunks, whatever the number of rows. Scores equal those of Score on
// the whole matrix, bit for bit, and an error names the data's row. It
// stops at fn's first error, at the first error of d or src, or when ctx
// ends. A detector not built by New or Load is an error.
func ScoreSource(ctx context.Context, d Detector, src Source, fn func(lo int, scores []float64) error) error {
	s, ok := d.(interface {
		ScoreSource(ctx context.Context, src Source, fn func(lo int, scores []float64) error) error
	})
	if !ok {
		return fmt.Errorf("detector: %T cannot score a Source", d)
	}
	return s.ScoreSource(ctx, src, fn)
}
