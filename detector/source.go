package detector

import (
	"context"
	"errors"
	"fmt"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/scale"
)

// Source is a data set read in chunks of rows instead of held in memory:
// a file larger than memory (package dataset opens every format it reads
// as one) or a stream. Fit and Score take matrices; FitSource and
// ScoreSource take a Source, and a detector then holds no more of the
// data than its method needs (a sample, a sum, or the rows it keeps).
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

// RowReader is a Source that also reads rows by index (an .npy file or
// a stored .npz member, through ReadAt): a fit that needs a sample of a
// large file draws its rows without reading the rest.
type RowReader interface {
	Source
	// ReadRows returns the rows idx (each in [0, rows), in any order,
	// repeats allowed) as a new len(idx) × cols matrix.
	ReadRows(ctx context.Context, idx []int) (mat.Matrix, error)
}

// SourceFitter is implemented by detectors that fit from a Source
// (every method of this module does).
type SourceFitter interface {
	FitSource(ctx context.Context, src Source) error
}

// ContextScorer is implemented by detectors whose scoring can be
// cancelled (every method of this module).
type ContextScorer interface {
	ScoreContext(ctx context.Context, dst []float64, X mat.Matrix) ([]float64, error)
}

// FitSource fits d on the rows of src. A detector that cannot read a
// Source is an error.
func FitSource(ctx context.Context, d Detector, src Source) error {
	f, ok := d.(SourceFitter)
	if !ok {
		return fmt.Errorf("detector: %T cannot fit from a Source", d)
	}
	return f.FitSource(ctx, src)
}

// ScoreContext is d.Score that stops early, returning ctx.Err(), when ctx
// ends (for a detector that is not a ContextScorer, ctx is checked before
// and after the whole Score).
func ScoreContext(ctx context.Context, d Detector, dst []float64, X mat.Matrix) ([]float64, error) {
	if s, ok := d.(ContextScorer); ok {
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

// ChunkRows returns the rows of a chunk of cols columns: enough for
// every core to have work (at least 256 rows), at most about 8 MiB of
// float64 values, so that a pass over a source holds a few such chunks
// whatever its size.
func ChunkRows(cols int) int {
	return max(256, (8<<20)/(8*max(cols, 1)))
}

// ScoreSource scores the rows of src with d, a chunk of ChunkRows rows at
// a time, and calls fn with each chunk's scores in row order: lo is the
// chunk's first row and scores is valid only during the call. Reading
// the next chunk overlaps scoring this one; memory holds the model and
// a few chunks, whatever the number of rows. Scores equal those of Score
// on the whole matrix, bit for bit (every method scores row by row). It
// stops at fn's first error, at the first error of d or src, or when ctx
// ends.
func ScoreSource(ctx context.Context, d Detector, src Source, fn func(lo int, scores []float64) error) error {
	_, cols := src.Dims()
	type chunk struct {
		lo int
		X  mat.Matrix
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	chunks := make(chan chunk, 1)
	readErr := make(chan error, 1)
	go func() {
		defer close(chunks)
		readErr <- src.Scan(ctx, ChunkRows(cols), func(lo int, X mat.Matrix) error {
			select {
			case chunks <- chunk{lo, copyMatrix(X)}:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	var (
		scores []float64
		err    error
	)
	for c := range chunks {
		if err != nil {
			continue // drain, so the reader ends
		}
		scores, err = ScoreContext(ctx, d, scores, c.X)
		if err != nil {
			err = OffsetRows(err, c.lo)
			cancel()
			continue
		}
		if err = fn(c.lo, scores); err != nil {
			cancel()
		}
	}
	if rerr := <-readErr; err == nil {
		err = rerr
	}
	return err
}

// copyMatrix returns a copy of a chunk a Source handed over.
func copyMatrix(X mat.Matrix) mat.Matrix {
	if sp, ok := X.(*sparse.CSR); ok {
		r, _ := sp.Dims()
		idx := make([]int, r)
		for i := range idx {
			idx[i] = i
		}
		return csr.Subset(sp, idx)
	}
	return mat.DenseCopyOf(X)
}

// OffsetRows returns err with the rows it names moved down by lo: the
// error of a chunk whose first row is row lo of the data then names the
// data's rows. Errors that name no row are returned as they are.
func OffsetRows(err error, lo int) error {
	if lo == 0 || err == nil {
		return err
	}
	var (
		ve *ValueError
		se *ScoreError
		re *scale.RangeError
	)
	switch {
	case errors.As(err, &ve):
		c := *ve
		c.Row += lo
		return replaceErr(err, ve, &c)
	case errors.As(err, &se):
		c := *se
		c.Rows = make([]int, len(se.Rows))
		for i, r := range se.Rows {
			c.Rows[i] = r + lo
		}
		return replaceErr(err, se, &c)
	case errors.As(err, &re):
		c := *re
		c.Row += lo
		return replaceErr(err, re, &c)
	}
	return err
}

// replaceErr returns err with its wrapped error old replaced by new,
// keeping the prefixes of the chain's messages.
func replaceErr(err, old, new error) error {
	if err == old {
		return new
	}
	msg, inner := err.Error(), old.Error()
	if len(msg) >= len(inner) && msg[len(msg)-len(inner):] == inner {
		return &prefixed{prefix: msg[:len(msg)-len(inner)], err: new}
	}
	return new
}

// prefixed is an error with a fixed text before a wrapped one.
type prefixed struct {
	prefix string
	err    error
}

func (e *prefixed) Error() string { return e.prefix + e.err.Error() }
func (e *prefixed) Unwrap() error { return e.err }
