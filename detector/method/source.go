package method

import (
	"context"
	"errors"
	"fmt"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/scale"
)

// RowReader is a detector.Source that also reads rows by index (an .npy
// file or a stored .npz member, through ReadAt): a fit that needs a
// sample of a large file draws its rows without reading the rest
// (Fitting.Rows, Fitting.Sample).
type RowReader interface {
	detector.Source
	// ReadRows returns the rows idx (each in [0, rows), in any order,
	// repeats allowed) as a new len(idx) × cols matrix.
	ReadRows(ctx context.Context, idx []int) (mat.Matrix, error)
}

// ChunkRows returns the rows of a chunk of cols columns: enough for
// every core to have work (at least 256 rows), at most about 8 MiB of
// float64 values, so that a pass over a source holds a few such chunks
// whatever its size.
func ChunkRows(cols int) int {
	return max(256, (8<<20)/(8*max(cols, 1)))
}

// ScoreSource scores the rows of src, a chunk of ChunkRows rows at a
// time, for detector.ScoreSource: fn receives each chunk's scores in row
// order (lo is the chunk's first row; scores is valid only during the
// call). Reading and scaling the next chunk overlaps scoring this one:
// the reader scales each chunk straight out of the source's buffer into
// one of two sets of buffers that go round (no other copy), so memory
// holds the model, the source's buffer and two scaled chunks whatever
// the number of rows, and no chunk leaves garbage behind. The whole pass
// scores with the model published when it starts, even while another
// fit replaces it. Scores equal those of Score on the whole matrix, bit
// for bit: Score scales and scores in the same chunks. Errors name the
// data's rows.
func (b *Base[M]) ScoreSource(ctx context.Context, src detector.Source, fn func(lo int, scores []float64) error) error {
	cur := b.s.cur.Load()
	if cur == nil {
		return detector.ErrNotFitted
	}
	method := b.s.method
	_, cols := src.Dims()
	densify := b.s.hooks.Densify
	check := chunkChecker(src)
	type chunk struct {
		lo   int
		X    mat.Matrix
		bufs *chunkBufs
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	free := make(chan *chunkBufs, 2)
	free <- new(chunkBufs)
	free <- new(chunkBufs)
	chunks := make(chan chunk)
	readErr := make(chan error, 1)
	go func() {
		defer close(chunks)
		var err error
		defer func() { readErr <- err }()
		defer recoverAs(method, "scaling", &err)
		err = src.Scan(ctx, ChunkRows(cols), func(lo int, X mat.Matrix) error {
			var bufs *chunkBufs
			select {
			case bufs = <-free:
			case <-ctx.Done():
				return ctx.Err()
			}
			X = csr.Input(X)
			_, sparseRows := X.(*sparse.CSR)
			err := check(X, cur.dim)
			var Xs mat.Matrix
			if err == nil {
				Xs, err = b.prepare(cur, bufs, X, densify && sparseRows, true)
			}
			if err != nil {
				free <- bufs
				return offsetRows(fmt.Errorf("%s: %w", method, err), lo)
			}
			select {
			case chunks <- chunk{lo, Xs, bufs}:
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
		if err == nil {
			r, _ := c.X.Dims()
			scores = ScoreDst(scores, r)
			if err = b.scoreChunk(ctx, cur, scores, c.X); err != nil {
				err = offsetRows(err, c.lo)
			} else {
				err = fn(c.lo, scores)
			}
			if err != nil {
				cancel()
			}
		}
		free <- c.bufs // after an error too: the reader may be waiting for it
	}
	if rerr := <-readErr; err == nil {
		err = rerr
	}
	return err
}

// scoreChunk scores the prepared rows X of a chunk into dst with cur's
// model, as score does: errors name X's rows, and a panic of the
// method's Score is an error.
func (b *Base[M]) scoreChunk(ctx context.Context, cur *fitted[M], dst []float64, X mat.Matrix) (err error) {
	method := b.s.method
	defer recoverAs(method, "scoring", &err)
	err = cur.model.Score(ctx, dst, X)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", method, ctx.Err())
		}
		return fmt.Errorf("%s: %w", method, err)
	}
	return nanRows(method, dst, false)
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

// offsetRows returns err with the rows it names moved down by lo: the
// error of a chunk whose first row is row lo of the data then names the
// data's rows. Errors that name no row are returned as they are.
func offsetRows(err error, lo int) error {
	if lo == 0 || err == nil {
		return err
	}
	var (
		ve *detector.ValueError
		se *detector.ScoreError
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
