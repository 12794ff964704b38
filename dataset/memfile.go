package dataset

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/internal/csr"
)

// memFile is a File over a Dataset in memory: the data a stream holds
// that cannot be read in chunks of rows (a LIBSVM stream of unknown
// width, a Fortran-order array that is not in a file), read whole first.
// It reads rows by index and passes any number of times.
type memFile struct {
	ds     *Dataset
	closer io.Closer
}

func newMemFile(ds *Dataset, closer io.Closer) *memFile { return &memFile{ds: ds, closer: closer} }

func (f *memFile) Name() string         { return f.ds.Source }
func (f *memFile) Dims() (int, int)     { return f.ds.X.Dims() }
func (f *memFile) Shape() []int         { return slices.Clone(f.ds.Shape) }
func (f *memFile) Columns() []string    { return slices.Clone(f.ds.Columns) }
func (f *memFile) ColumnNumbers() []int { return slices.Clone(f.ds.ColumnNumbers) }
func (f *memFile) Notes() []string      { return slices.Clone(f.ds.Notes) }

// FiniteValues reports that every value a pass hands out is finite: the
// file checks them as it reads (a NaN or an infinity is an *Error naming
// its row and column), so a detector's pass need not check them again.
func (f *memFile) FiniteValues() bool { return true }

func (f *memFile) Sparse() bool {
	_, ok := f.ds.X.(*sparse.CSR)
	return ok
}

func (f *memFile) Labels() Labels {
	switch {
	case f.ds.Y != nil:
		return Labels{Kind: AnomalyLabels, Final: true}
	case f.ds.Class != nil:
		return Labels{Kind: ClassLabels, Final: true}
	}
	return Labels{Final: true}
}

func (f *memFile) Close() error {
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

func (f *memFile) Scan(ctx context.Context, max int, fn func(lo int, X mat.Matrix) error) error {
	return f.ScanLabeled(ctx, max, func(lo int, X mat.Matrix, _ []int) error { return fn(lo, X) })
}

func (f *memFile) ScanLabeled(ctx context.Context, max int, fn func(lo int, X mat.Matrix, y []int) error) error {
	checkMax(max)
	n, _ := f.ds.X.Dims()
	y := f.ds.Y
	if y == nil {
		y = f.ds.Class
	}
	for lo := 0; lo < n; lo += max {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+max, n)
		var yc []int
		if y != nil {
			yc = y[lo:hi:hi]
		}
		if err := fn(lo, csr.Rows(f.ds.X, lo, hi), yc); err != nil {
			return err
		}
	}
	return nil
}

func (f *memFile) ReadRows(ctx context.Context, idx []int) (mat.Matrix, error) {
	n, d := f.ds.X.Dims()
	checkRows(idx, n)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if m, ok := f.ds.X.(*sparse.CSR); ok {
		return csr.Subset(m, idx), nil
	}
	out := mat.NewDense(len(idx), d, nil)
	for k, i := range idx {
		mat.Row(out.RawRowView(k), i, f.ds.X)
	}
	return out, nil
}

// checkRows panics on an index out of [0, n) or an empty list: a
// programmer's mistake, as gonum's index checks are.
func checkRows(idx []int, n int) {
	if len(idx) == 0 {
		panic("dataset: ReadRows of no rows")
	}
	for _, i := range idx {
		if i < 0 || i >= n {
			panic(fmt.Sprintf("dataset: ReadRows: row %d out of range [0, %d)", i, n))
		}
	}
}
