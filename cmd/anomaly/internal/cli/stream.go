package cli

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/bench"
	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/detector"
	kit "github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/tensor"
)

// open opens the data as a dataset.File, read chunk by chunk: standard
// input, or with --data-format a named pipe or device, as a stream (one
// pass), any other path by its extension. Every failure is bad data (exit
// 2) naming the file. A reader that must hold the data (a Fortran-order
// .npy stream) holds at most the memory budget. features and names are as
// for load.
func (o dataFlags) open(progress func(done, total int64), features int, names ...string) (dataset.File, error) {
	budget, source, err := memoryBudget(o.maxMemory)
	if err != nil {
		return nil, err
	}
	opt := dataset.Options{Label: o.label, MaxBytes: budget, Features: features, FeatureNames: names, Progress: progress}
	in, err := o.openStream()
	if err != nil {
		return nil, err
	}
	var f dataset.File
	if in != nil {
		f, err = dataset.OpenStream(in.r, in.format, o.name(), opt)
	} else {
		f, err = dataset.Open(o.data, opt)
	}
	if err != nil {
		return nil, o.readErr(err, source)
	}
	return f, nil
}

// openApply loads the model and opens the data file to apply it to, with
// the checks load makes (column names, sample shape, memory): the data is
// then read a chunk at a time, so scoring holds the model and a few
// chunks whatever the file's size.
func (o applyOptions) openApply(progress func(done, total int64)) (detector.Detector, dataset.File, error) {
	m, err := o.loadApplied()
	if err != nil {
		return nil, nil, err
	}
	d, name, params, features, budget, source := m.d, m.name, m.params, m.features, m.budget, m.source
	f, err := o.dataFlags.open(progress, features, m.columns...)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (detector.Detector, dataset.File, error) {
		f.Close()
		return nil, nil, err
	}
	printNotes(o.notes, o.name(), f.Notes())
	if err := detector.CheckColumns(d, f.Columns()); err != nil {
		var ce *detector.ColumnsError
		if errors.As(err, &ce) {
			ce.Numbers = f.ColumnNumbers()
		}
		return fail(dataErr(fmt.Errorf("%s: %w", o.name(), err)))
	}
	if ms, err := tensor.ParseShape(params["shape"]); err == nil && len(f.Shape()) > 0 && !slices.Equal(ms, f.Shape()) {
		return fail(dataErr(fmt.Errorf("%s: samples have shape %s, the model was fitted on shape %s", o.name(), tensor.FormatShape(f.Shape()), params["shape"])))
	}
	if _, cols := f.Dims(); features > 0 && cols != features {
		return fail(dataErr(fmt.Errorf("%s: %w", o.name(), &detector.DimError{Got: cols, Want: features})))
	}
	// Scoring holds the model and a chunk at a time: the estimate of one
	// chunk's scoring, two chunks of data (the one read ahead) and the
	// model.
	rows, cols := f.Dims()
	chunk := kit.ChunkRows(cols)
	if rows >= 0 {
		chunk = min(chunk, rows)
	}
	size := kit.Size{Rows: chunk, Cols: cols, NonZeros: int64(chunk) * int64(cols), Sparse: f.Sparse()}
	if size.Sparse {
		// A chunk's non-zeros: at most a quarter of the file's bytes
		// ("i:v " is at least four), in proportion to its rows.
		if st, err := os.Stat(o.data); err == nil && st.Mode().IsRegular() {
			nnz := float64(st.Size()) / 4
			if rows > 0 {
				nnz *= float64(chunk) / float64(rows)
			}
			size.NonZeros = int64(min(nnz, float64(size.NonZeros)))
		}
	}
	if est, err := kit.Memory(d, kit.ScoreOp, size); err == nil {
		need := float64(est) + 2*size.Bytes() + bench.ProcessBytes + float64(m.size)
		if need > float64(budget) {
			return fail(dataErr(fmt.Errorf("%s: scoring chunks of %d rows × %d with %s needs about %s, over the memory budget of %s (%s): the model is too large for the budget; raise --max-memory",
				o.name(), chunk, cols, name, dataset.FormatBytes(saturated(need)), dataset.FormatBytes(budget), source)))
		}
	}
	return d, f, nil
}

// labeledSource is a File read for its rows and its labels: Scan hands
// the rows on and keeps each row's label (as the file writes it), in row
// order, for eval once the pass is done.
type labeledSource struct {
	dataset.File
	labels []int
	seen   bool // the file has labels
}

func (s *labeledSource) Scan(ctx context.Context, max int, fn func(lo int, X mat.Matrix) error) error {
	return s.File.ScanLabeled(ctx, max, func(lo int, X mat.Matrix, y []int) error {
		if y != nil {
			s.seen = true
			s.labels = append(s.labels, y...)
		}
		return fn(lo, X)
	})
}

// progressBar returns a progress bar on the command's standard error
// when it is a terminal, else nil (whose methods do nothing).
func (o applyOptions) progressBar() *progressBar {
	if o.notes != nil && isTerminal(o.notes) {
		return newProgressBar(o.notes)
	}
	return nil
}

// readProgress returns the bar's report of the bytes read, or nil.
func (b *progressBar) readProgress() func(done, total int64) {
	if b == nil {
		return nil
	}
	return b.readBytes
}

// fitInput is the data a fit reads: a file read chunk by chunk, from
// which a method of the kit fits (detector.FitSource) with the detector
// built for it, or a data set loaded whole.
type fitInput struct {
	file dataset.File
	d    detector.Detector // built for file
	ds   *dataset.Dataset
}

// input opens the training data. A method that fits from a source reads
// a file a chunk at a time (a sample, a pass, or the rows it keeps: never
// the file whole beside them), and a stream when it fits on a sample
// (one pass draws it); --labeled, --normal-class, a stream fitted whole
// and the methods that cannot read a source load the data.
func (o fitOptions) input(params map[string]string, opts detector.Options) (fitInput, error) {
	if !o.labeled && o.normalClass < 0 {
		stream := o.data == "-"
		if st, err := os.Stat(o.data); err == nil && !st.Mode().IsRegular() {
			stream = true
		}
		if !stream || o.sample > 0 {
			f, err := o.dataFlags.open(nil, 0)
			if err != nil {
				return fitInput{}, err
			}
			opts.Shape = f.Shape()
			d, err := detector.New(o.method, params, opts)
			if err != nil {
				f.Close()
				return fitInput{}, paramOrDataErr(o.name(), err)
			}
			if _, ok := d.(interface {
				FitSource(context.Context, detector.Source) error
			}); ok {
				return fitInput{file: f, d: d}, nil
			}
			f.Close()
		}
	}
	ds, err := o.dataFlags.load(0)
	if err != nil {
		return fitInput{}, err
	}
	return fitInput{ds: ds}, nil
}

func (in fitInput) close() {
	if in.file != nil {
		in.file.Close()
	}
}

func (in fitInput) notes() []string {
	if in.file != nil {
		return in.file.Notes()
	}
	return in.ds.Notes
}

func (in fitInput) columns() []string {
	if in.file != nil {
		return in.file.Columns()
	}
	return in.ds.Columns
}

// dims returns the rows and columns of the data (the rows of a file once
// a pass has read them).
func (in fitInput) dims() (int, int) {
	if in.file != nil {
		return in.file.Dims()
	}
	return in.ds.Rows(), in.ds.Cols()
}

// checkFileMemory is checkMemory for a fit from a file read chunk by
// chunk: the method's estimate (on the sample when it fits on one) and
// two chunks of the file, not the file. A text file's rows, not known
// before it is read, are taken at their most: every value a digit and a
// separator.
func checkFileMemory(d detector.Detector, f dataset.File, path, flag, method string, params map[string]string) error {
	rows, cols := f.Dims()
	bound := rows < 0
	if bound {
		st, err := os.Stat(path)
		if err != nil || !st.Mode().IsRegular() {
			return nil // a stream: its sample's reservoir is the method's
		}
		rows = int(min(st.Size()/int64(2*max(cols, 1)), math.MaxInt32))
	}
	size := kit.Size{Rows: rows, Cols: cols, NonZeros: int64(rows) * int64(cols)}
	if f.Sparse() {
		size.Sparse = true
		if st, err := os.Stat(path); err == nil {
			size.NonZeros = min(size.NonZeros, st.Size()/4)
		}
	}
	count := ""
	if bound {
		count = "up to "
	}
	return checkBudget(d, kit.FitOp, size, f.Name(), false, count, flag, method, params, 0)
}

// budgetSource is a file of unknown row count (a text file, a gzip
// stream) fitted under the memory budget: its passes count the rows, and
// once the method's estimate for the rows read so far passes the budget
// the fit stops with the refusal checkBudget gives before a fit, instead
// of reading to the end of a stream that may never end or be a gzip bomb
// (a 15 MB .csv.gz of 10 GB of rows took 400 s to read).
type budgetSource struct {
	dataset.File
	check func(rows int) error
}

func (s budgetSource) Scan(ctx context.Context, max int, fn func(lo int, X mat.Matrix) error) error {
	return s.File.Scan(ctx, max, func(lo int, X mat.Matrix) error {
		r, _ := X.Dims()
		if err := s.check(lo + r); err != nil {
			return err
		}
		return fn(lo, X)
	})
}

// guardRows returns f as the source a fit reads: f itself when its row
// count is known (checkFileMemory checked it), else f under the budget
// for the rows read so far (checked at most every ChunkRows rows).
func guardRows(d detector.Detector, f dataset.File, flag, method string, params map[string]string) detector.Source {
	if rows, _ := f.Dims(); rows >= 0 {
		return f
	}
	next := 0
	return budgetSource{File: f, check: func(rows int) error {
		if rows < next {
			return nil
		}
		_, cols := f.Dims()
		next = rows + kit.ChunkRows(cols)
		size := kit.Size{Rows: rows, Cols: cols, NonZeros: int64(rows) * int64(cols), Sparse: f.Sparse()}
		return checkBudget(d, kit.FitOp, size, f.Name(), false, "at least ", flag, method, params, 0)
	}}
}
