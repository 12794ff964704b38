package method

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/scale"
)

// Fitting is one fit in progress as its method sees it: the training
// rows, already through the fitted scale stage, whether they are a
// matrix in memory (Fit) or a Source read chunk by chunk (FitSource), and
// the reports the fit makes (progress, cautions). A method reads the rows
// the way its model needs them:
//
//   - Matrix or Dense holds every row in memory, for a method that keeps
//     its training rows (kde, kpca, the support vector machines);
//   - Scan passes over the rows chunk by chunk, for a model that is a sum
//     or a set of statistics (EXPoSE's batch embedding, gauss);
//   - Rows and Sample read some rows, for a method that needs a sample
//     (EXPoSE's SGD, iforest's trees).
//
// The stage is applied to the rows as the method reads them: a row the
// method does not read is never scaled or copied.
type Fitting struct {
	method     string
	src        detector.Source
	mem        mat.Matrix // the rows when they are a matrix in memory, else nil
	stage      *scale.Stage
	rows, cols int
	progress   func(stage string, done, total int)
	caution    string
	densify    bool // Hooks.Densify: sparse rows are densified before the stage

	scaled   mat.Matrix // Matrix's copy, once made
	shared   bool       // scaled was handed out by Matrix
	stageX   mat.Matrix // the stage's sample, scaled (Hooks.StageSample)
	stageIdx []int
}

// Dims returns the number of training rows and columns.
func (f *Fitting) Dims() (rows, cols int) { return f.rows, f.cols }

// Sparse reports whether the rows come as *sparse.CSR matrices (they
// then stay sparse: the stage scales them without centring).
func (f *Fitting) Sparse() bool { return f.src.Sparse() && !f.densify }

// Matrix returns every training row, scaled, in memory: the fit's own
// matrix when the scale stage is none and the rows are in memory,
// otherwise one scaled copy (a *sparse.CSR for sparse rows). The method
// must not modify it.
func (f *Fitting) Matrix(ctx context.Context) (mat.Matrix, error) {
	if f.scaled == nil {
		X, err := f.all(ctx)
		if err != nil {
			return nil, err
		}
		f.scaled = X
	}
	f.shared = true
	return f.scaled, nil
}

// Dense returns every training row, scaled, as a dense matrix the method
// owns: it may modify it and keep it in its model. It is the stage's copy
// when there is one (no second copy is made), and sparse rows are
// densified in one pass over their non-zeros.
func (f *Fitting) Dense(ctx context.Context) (*mat.Dense, error) {
	if d, ok := f.scaled.(*mat.Dense); ok && !f.shared && f.scaled != f.mem {
		f.scaled = nil // handed over
		return d, nil
	}
	if f.scaled != nil {
		return densify(f.scaled), nil
	}
	X, err := f.all(ctx)
	if err != nil {
		return nil, err
	}
	if d, ok := X.(*mat.Dense); ok && X != f.mem {
		return d, nil
	}
	return densify(X), nil
}

// all reads every row, scaled, into one new matrix (or returns the
// fit's own matrix when there is nothing to scale).
func (f *Fitting) all(ctx context.Context) (mat.Matrix, error) {
	if sp, ok := f.mem.(*sparse.CSR); ok && f.densify {
		X := densify(sp) // then scaled in place: one copy
		if _, err := f.stage.ApplyInto(X, X); err != nil {
			return nil, fmt.Errorf("%s: %w", f.method, err)
		}
		return X, nil
	}
	if f.mem != nil {
		X, err := f.stage.Apply(f.mem)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.method, err)
		}
		return X, nil
	}
	if f.Sparse() {
		b := csr.NewBuilder(f.cols)
		err := f.Scan(ctx, ChunkRows(f.cols), func(_ int, X mat.Matrix) error {
			sp := X.(*sparse.CSR)
			r, _ := sp.Dims()
			for i := range r {
				ind, val := csr.Row(sp, i)
				if err := b.AddRow(ind, val); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		return b.Build(f.cols), nil
	}
	out := mat.NewDense(max(f.rows, 1), f.cols, nil)
	err := f.Scan(ctx, ChunkRows(f.cols), func(lo int, X mat.Matrix) error {
		r, _ := X.Dims()
		out.Slice(lo, lo+r, 0, f.cols).(*mat.Dense).Copy(X)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// densify returns a dense copy of X; a sparse X is copied in one pass
// over its non-zeros.
func densify(X mat.Matrix) *mat.Dense {
	sp, ok := X.(*sparse.CSR)
	if !ok {
		return mat.DenseCopyOf(X)
	}
	return densifyInto(new(mat.Dense), sp)
}

// Scan calls fn with the training rows, scaled, in order, in chunks of
// at most max rows: X holds rows lo, lo+1, … and is valid only during the
// call (a dense chunk's buffer is reused). It stops at fn's first error
// and returns it, and returns the context's error when ctx ends.
func (f *Fitting) Scan(ctx context.Context, max int, fn func(lo int, X mat.Matrix) error) error {
	var buf mat.Dense
	err := f.scanRaw(ctx, max, func(lo int, X mat.Matrix) error {
		Xs, err := f.stage.ApplyInto(&buf, X)
		if err != nil {
			return offsetRows(fmt.Errorf("%s: %w", f.method, err), lo)
		}
		return fn(lo, Xs)
	})
	return f.ctxErr(ctx, err)
}

// scanRaw passes over the unscaled rows, checking each chunk's values
// when they come from a source (a matrix in memory was checked whole).
func (f *Fitting) scanRaw(ctx context.Context, max int, fn func(lo int, X mat.Matrix) error) error {
	if f.densify && f.src.Sparse() {
		var buf mat.Dense
		inner := fn
		fn = func(lo int, X mat.Matrix) error { return inner(lo, densifyInto(&buf, X.(*sparse.CSR))) }
	}
	if f.mem != nil {
		return scanMatrix(ctx, f.mem, max, fn)
	}
	return scanChecked(ctx, f.method, f.src, max, fn)
}

// densifyInto writes the sparse rows X into buf (resized, reusing its
// storage) in one pass over their non-zeros, and returns it.
func densifyInto(buf *mat.Dense, X *sparse.CSR) *mat.Dense {
	r, c := X.Dims()
	if resize(buf, r, c) {
		clear(buf.RawMatrix().Data)
	}
	for i := range r {
		row := buf.RawRowView(i)
		ind, val := csr.Row(X, i)
		for k, j := range ind {
			row[j] = val[k]
		}
	}
	return buf
}

// resize makes buf an r × c matrix, in its own storage when that is
// large enough (reused, true: its values are stale) or new (zero).
func resize(buf *mat.Dense, r, c int) (reused bool) {
	if raw := buf.RawMatrix(); !buf.IsEmpty() && cap(raw.Data) >= r*c {
		buf.SetRawMatrix(blas64.General{Rows: r, Cols: c, Stride: c, Data: raw.Data[:r*c]})
		return true
	}
	buf.Reset()
	buf.ReuseAs(r, c)
	return false
}

// scanMatrix is Scan over a matrix in memory: its rows are sliced, not
// copied.
func scanMatrix(ctx context.Context, X mat.Matrix, max int, fn func(lo int, X mat.Matrix) error) error {
	n, _ := X.Dims()
	for lo := 0; lo < n; lo += max {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(lo, csr.Rows(X, lo, min(n, lo+max))); err != nil {
			return err
		}
	}
	return nil
}

// scanChecked is src.Scan with every chunk checked: as many columns as
// the source says, every value finite. Errors name the data's rows.
func scanChecked(ctx context.Context, method string, src detector.Source, max int, fn func(lo int, X mat.Matrix) error) error {
	_, cols := src.Dims()
	check := chunkChecker(src)
	return src.Scan(ctx, max, func(lo int, X mat.Matrix) error {
		if err := check(X, cols); err != nil {
			return offsetRows(fmt.Errorf("%s: %w", method, err), lo)
		}
		return fn(lo, X)
	})
}

// ctxErr returns the error of a pass over the rows: the context's error,
// named by the method, when ctx ended, else err.
func (f *Fitting) ctxErr(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("%s: %w", f.method, ctx.Err())
	}
	return err
}

// ByIndex reports whether Rows reads rows by index (the rows are in
// memory, or the source is a RowReader) rather than in a pass
// over the data: a method that reads many small sets of rows (EXPoSE's
// SGD) then asks for them a few at a time; otherwise it asks for as many
// as it can hold in one call, each call being a pass.
func (f *Fitting) ByIndex() bool {
	if f.mem != nil {
		return true
	}
	_, ok := f.src.(RowReader)
	return ok
}

// EvenRows returns m rows of [0, n) (m ≤ n) evenly spaced: ⌊i·n/m⌋ for
// i < m; no random choice is involved. A method that sets its threshold
// from a sample of the training rows reads these (Rows).
func EvenRows(n, m int) []int {
	rows := make([]int, m)
	for i := range rows {
		rows[i] = int(int64(i) * int64(n) / int64(m))
	}
	return rows
}

// ScoreEvenly reads m evenly spaced training rows (EvenRows, m ≤ the
// rows) and returns their scores by score: the threshold of a fit on
// more rows than a method scores for it.
func (f *Fitting) ScoreEvenly(ctx context.Context, m int, score func(dst []float64, X mat.Matrix) error) ([]float64, error) {
	X, err := f.Rows(ctx, EvenRows(f.rows, m))
	if err != nil {
		return nil, err
	}
	train := make([]float64, m)
	return train, score(train, X)
}

// Rows returns the training rows idx (each in [0, rows), in any order,
// repeats allowed), scaled, as a new matrix: read by index when the rows
// are in memory or the source is a RowReader, else in one pass.
func (f *Fitting) Rows(ctx context.Context, idx []int) (mat.Matrix, error) {
	X, err := f.readRows(ctx, idx)
	if err != nil {
		return nil, f.ctxErr(ctx, err)
	}
	Xs, err := f.stage.Apply(X)
	if err != nil {
		var re *scale.RangeError
		if errors.As(err, &re) && re.Row < len(idx) {
			err = offsetRows(err, idx[re.Row]-re.Row)
		}
		return nil, fmt.Errorf("%s: %w", f.method, err)
	}
	return Xs, nil
}

// readRows reads the unscaled rows idx.
func (f *Fitting) readRows(ctx context.Context, idx []int) (mat.Matrix, error) {
	for _, i := range idx {
		if i < 0 || i >= f.rows {
			panic(fmt.Sprintf("method: row %d out of range [0, %d)", i, f.rows))
		}
	}
	var X mat.Matrix
	if f.mem != nil {
		X = gather(f.mem, idx)
	} else {
		var err error
		if X, err = readSource(ctx, f.method, f.src, idx); err != nil {
			return nil, err
		}
	}
	if sp, ok := X.(*sparse.CSR); ok && f.densify {
		X = densify(sp)
	}
	return X, nil
}

// readSource reads the rows idx of a source: by index through a
// RowReader, else in one pass that keeps the rows asked for.
func readSource(ctx context.Context, method string, src detector.Source, idx []int) (mat.Matrix, error) {
	_, cols := src.Dims()
	if rr, ok := src.(RowReader); ok {
		X, err := rr.ReadRows(ctx, idx)
		if err != nil {
			return nil, err
		}
		if err := CheckMatrix(X, cols); err != nil {
			var ve *detector.ValueError
			if errors.As(err, &ve) {
				err = offsetRows(err, idx[ve.Row]-ve.Row)
			}
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		return X, nil
	}
	// One pass: the positions in idx of every row asked for, by row.
	order := make([]int, len(idx))
	for k := range order {
		order[k] = k
	}
	slices.SortFunc(order, func(a, b int) int { return idx[a] - idx[b] })
	rows := make([][]float64, len(idx)) // dense rows, or
	inds := make([][]int, len(idx))     // the non-zeros of sparse ones
	next := 0
	err := scanChecked(ctx, method, src, ChunkRows(cols), func(lo int, X mat.Matrix) error {
		r, _ := X.Dims()
		for next < len(order) && idx[order[next]] < lo+r {
			i := idx[order[next]] - lo
			if sp, ok := X.(*sparse.CSR); ok {
				ind, val := csr.Row(sp, i)
				inds[order[next]], rows[order[next]] = slices.Clone(ind), slices.Clone(val)
			} else {
				rows[order[next]] = mat.Row(nil, i, X)
			}
			next++
		}
		if next == len(order) {
			return errDone
		}
		return nil
	})
	if err != nil && err != errDone {
		return nil, err
	}
	if next < len(order) {
		return nil, fmt.Errorf("%s: the data ended before row %d", method, idx[order[next]]+1)
	}
	if src.Sparse() {
		b := csr.NewBuilder(cols)
		for k := range idx {
			if err := b.AddRow(inds[k], rows[k]); err != nil {
				return nil, err
			}
		}
		return b.Build(cols), nil
	}
	out := mat.NewDense(len(idx), cols, nil)
	for k, row := range rows {
		copy(out.RawRowView(k), row)
	}
	return out, nil
}

// errDone ends a pass that has read what it needs.
var errDone = errors.New("done")

// gather copies the rows idx of X into a new matrix of the same kind
// (CSR stays CSR).
func gather(X mat.Matrix, idx []int) mat.Matrix {
	if sp, ok := X.(*sparse.CSR); ok {
		return csr.Subset(sp, idx)
	}
	_, c := X.Dims()
	out := mat.NewDense(len(idx), c, nil)
	if rv, ok := X.(mat.RawRowViewer); ok {
		for k, i := range idx {
			copy(out.RawRowView(k), rv.RawRowView(i))
		}
		return out
	}
	for k, i := range idx {
		mat.Row(out.RawRowView(k), i, X)
	}
	return out
}

// Sample returns k training rows drawn uniformly without replacement
// with rng (every row when k ≥ rows), scaled, and their indices in
// ascending order.
func (f *Fitting) Sample(ctx context.Context, k int, rng *rand.Rand) (mat.Matrix, []int, error) {
	idx := SampleIndices(rng, f.rows, k)
	X, err := f.Rows(ctx, idx)
	if err != nil {
		return nil, nil, err
	}
	return X, idx, nil
}

// StageSample returns the rows the scale stage was fitted on and their
// indices (ascending), scaled, when the method asked for a sample
// (Hooks.StageSample); nil when the stage was fitted on every row.
func (f *Fitting) StageSample() (mat.Matrix, []int) { return f.stageX, f.stageIdx }

// SampleIndices returns k of the n indices 0, …, n−1 drawn uniformly
// without replacement with rng, in ascending order (all n when k ≥ n).
// It is a partial Fisher–Yates shuffle over a map of the displaced
// entries: O(k) time and memory whatever n is.
func SampleIndices(rng *rand.Rand, n, k int) []int {
	if k >= n {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	moved := make(map[int]int, k)
	at := func(p int) int {
		if v, ok := moved[p]; ok {
			return v
		}
		return p
	}
	idx := make([]int, k)
	for i := range idx {
		j := i + rng.IntN(n-i)
		idx[i] = at(j)
		moved[j] = at(i)
	}
	slices.Sort(idx)
	return idx
}

// Report passes a progress report to the fit's progress callback, if
// any: stage names the step (see ProgressFunc), done of total units.
func (f *Fitting) Report(stage string, done, total int) {
	if f.progress != nil {
		f.progress(stage, done, total)
	}
}

// Caution describes a degenerate model the training scores need not show
// (a kernel width at which every row resembles only itself, a solver
// stopped at its iteration limit); it becomes the fit's warning, before
// the shared ones. The first caution of a fit is kept.
func (f *Fitting) Caution(msg string) {
	if f.caution == "" {
		f.caution = msg
	}
}

// CautionIterationLimit cautions that the method's solver stopped at its
// limit, after count steps of the kind unit ("iterations", "passes"),
// before it met its tolerance: the model is not the solution (LIBSVM's
// svm-train warns likewise). what names the limit's parameter.
func (f *Fitting) CautionIterationLimit(count int, unit, what string) {
	f.Caution(fmt.Sprintf("%s: the solver stopped at its limit of %d %s before it met its tolerance: the model is not converged and its scores are those of a partial solution (raise %s)", f.method, count, unit, what))
}

// CautionIsolating cautions when the rbf or laplacian kernel of kind at
// width gamma isolates the rows of X (kernel.IsolatingSample). X holds the
// training rows or a uniform sample of them (a method that reads a sample
// of a large data set), whose nearest-neighbour distances are scaled to
// the fit's row count; rows of another kind, more than the fit's (CP
// component vectors), are taken as they are.
func (f *Fitting) CautionIsolating(kind string, X mat.Matrix, gamma float64) {
	r, _ := X.Dims()
	if iso, t := kernel.IsolatingSample(kind, X, max(f.rows, r), gamma); iso {
		f.Caution(fmt.Sprintf("%s: at gamma %v most training rows have no other row with a kernel value above float64's precision (the median over rows of γ‖x−y‖² to the nearest other row, or γ‖x−y‖₁ for laplacian, is about %.3g, above ln 2⁵² ≈ 36): each row resembles only itself, so the model scores alike every row it has not seen (lower gamma, or leave it to its rule)", f.method, gamma, t))
	}
}
