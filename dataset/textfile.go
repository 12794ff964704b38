package dataset

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// textRows is the parser of a pass over a text file (CSV, TSV, ARFF,
// LIBSVM) once its header is read.
type textRows interface {
	// fill reads rows into c until it is full; io.EOF when the data end
	// (c may then hold rows).
	fill(c *chunk) error
	// finish checks what the end of the data decides (no rows, label
	// words that are no pair).
	finish() error
	// labelRule says what the labels are: final once finish has passed.
	labelRule() Labels
	notes() []string
}

func (p *delimited) fill(c *chunk) error { return fillDense(p, c) }
func (p *arffRows) fill(c *chunk) error  { return fillDense(p, c) }
func (p *arffRows) notes() []string      { return p.noted }

// fill reads sample lines into c until it holds c.max rows or
// chunkValues stored values; a line that does not fit is kept for the
// next chunk.
func (p *libsvmRows) fill(c *chunk) error {
	for c.rows < c.max {
		if !p.pending {
			if err := p.read(); err != nil {
				return err
			}
		}
		if c.rows > 0 && len(c.ind)+len(p.cols) > chunkValues {
			p.pending = true
			return nil
		}
		p.pending = false
		for k, j := range p.cols {
			if v := p.vals[k]; v != 0 { // explicit zeros are not stored
				c.ind = append(c.ind, j)
				c.data = append(c.data, v)
			}
		}
		c.indptr = append(c.indptr, len(c.ind))
		if c.keepY {
			c.y = append(c.y, p.lab)
		}
		c.rows++
	}
	return nil
}

func (p *libsvmRows) finish() error {
	if p.rows == 0 {
		return &Error{Path: p.path, Err: errors.New("empty data: no sample lines")}
	}
	p.finished = true
	return nil
}

func (p *libsvmRows) labelRule() Labels { return p.labels.rule(p.finished) }

func (p *libsvmRows) notes() []string {
	if l := p.labelRule(); l.Final && l.OneClass {
		return []string{libsvmOneClassNote}
	}
	return nil
}

// textFile is a File over a text format: read in order, a pass at a
// time, each from a fresh reader (open), the first from the reader Open
// read the header from.
type textFile struct {
	name   string
	ext    string // ".csv", ".tsv", ".arff" or a LIBSVM extension
	opt    Options
	open   func() (io.Reader, *counter, error)
	size   int64 // bytes of the file, −1 when not known (progress)
	text   int64 // bytes of the text: size, or −1 for gzip data or a stream
	closer io.Closer

	cols, width int // width: of a LIBSVM file, the index limit
	sparse      bool
	columns     []string
	colNum      []int
	shape       []int

	mu     sync.Mutex
	closed bool
	rows   int      // −1 until a pass reaches the end
	next   textRows // the parser whose header Open read, for the first pass
	nextN  *counter
	cur    textRows // the parser of the latest pass
	labels Labels   // once final
	noted  []string
}

// openText opens a text format: its header read, and for a LIBSVM file
// its width found (see libsvmWidth).
func openText(ext string, open func() (io.Reader, *counter, error), size int64, gz bool, path string, opt Options, closer io.Closer) (File, error) {
	f := &textFile{name: path, ext: ext, opt: opt, open: open, size: size, text: size, closer: closer, rows: -1}
	if gz {
		f.text = -1
	}
	r, n, err := open()
	if err != nil {
		return nil, err
	}
	p, err := f.parser(r)
	if err != nil {
		return nil, err
	}
	switch q := p.(type) {
	case *delimited:
		f.cols, f.columns, f.colNum = q.d, q.l.cols, q.l.colNum
	case *arffRows:
		f.cols = q.d
		f.columns, f.colNum = q.columns()
	case *libsvmRows:
		f.sparse = true
		switch {
		case opt.Features > 0:
			f.width = opt.Features
			q.limit = f.width
		case size < 0:
			// A stream whose width no one gives: read it whole.
			return q.inMemory(closer)
		default:
			if err := f.libsvmWidth(q); err != nil {
				return nil, err
			}
			p, n = nil, nil
		}
		f.cols = f.width
	}
	f.next, f.nextN, f.cur = p, n, p
	if p != nil {
		f.labels, f.noted = p.labelRule(), p.notes()
	}
	if f.shape, err = applyShape(path, opt.Shape, f.cols); err != nil {
		return nil, err
	}
	return f, nil
}

// parser reads the header of the text file r.
func (f *textFile) parser(r io.Reader) (textRows, error) {
	switch f.ext {
	case ".csv":
		return newDelimited(newCSVScanner(r), f.name, f.opt)
	case ".tsv":
		return newDelimited(newTSVScanner(r), f.name, f.opt)
	case ".arff":
		return newARFF(r, f.name, f.opt)
	}
	p, err := newLIBSVM(r, f.name, f.opt)
	if err != nil {
		return nil, err
	}
	p.limit = f.width
	return p, nil
}

// libsvmWidth reads every line of a LIBSVM file once, its labels and
// indices but not its values, for the width (the highest index), the
// number of rows and the labels' rule. Should a line be wrong, the file
// is read again from the start with its values, as Load reads it, for
// the first error Load would name, which Open returns.
func (f *textFile) libsvmWidth(p *libsvmRows) error {
	p.indexOnly = true
	var err error
	for err == nil {
		err = p.read()
	}
	if err != io.EOF {
		r, _, oerr := f.open()
		if oerr != nil {
			return oerr
		}
		q, qerr := newLIBSVM(r, f.name, f.opt)
		for qerr == nil {
			qerr = q.read()
		}
		if qerr != io.EOF {
			return qerr
		}
		return err
	}
	if p.rows == 0 {
		return &Error{Path: f.name, Err: errors.New("empty data: no sample lines")}
	}
	if p.width == 0 {
		return &Error{Path: f.name, Err: errors.New("empty data: no feature index:value pairs on any line")}
	}
	f.width, f.rows = p.width, p.rows
	p.finished = true
	f.labels, f.noted = p.labelRule(), p.notes()
	return nil
}

// inMemory reads the rest of a LIBSVM stream whose width is not known,
// as ReadStream does, into a File that reads from memory.
func (p *libsvmRows) inMemory(closer io.Closer) (File, error) {
	X, labels, err := collectSparse(p, nil, nil, false, p.opt)
	if err != nil {
		return nil, err
	}
	ds, err := p.dataset(X, labels)
	if err != nil {
		return nil, err
	}
	return newMemFile(ds, closer), nil
}

func (f *textFile) Name() string         { return f.name }
func (f *textFile) Dims() (int, int)     { return f.rows, f.cols }
func (f *textFile) Sparse() bool         { return f.sparse }
func (f *textFile) Shape() []int         { return slices.Clone(f.shape) }
func (f *textFile) Columns() []string    { return slices.Clone(f.columns) }
func (f *textFile) ColumnNumbers() []int { return slices.Clone(f.colNum) }
func (f *textFile) Notes() []string      { return slices.Clone(f.noted) }

// FiniteValues reports that every value a pass hands out is finite: the
// file checks them as it reads (a NaN or an infinity is an *Error naming
// its row and column), so a detector's pass need not check them again.
func (f *textFile) FiniteValues() bool { return true }

func (f *textFile) Labels() Labels {
	if !f.labels.Final && f.cur != nil {
		return f.cur.labelRule()
	}
	return f.labels
}

func (f *textFile) Close() error {
	f.closed = true
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

func (f *textFile) Scan(ctx context.Context, max int, fn func(lo int, X mat.Matrix) error) error {
	return f.scan(ctx, max, false, func(lo int, X mat.Matrix, _ []int) error { return fn(lo, X) })
}

func (f *textFile) ScanLabeled(ctx context.Context, max int, fn func(lo int, X mat.Matrix, y []int) error) error {
	return f.scan(ctx, max, f.Labels().Kind != NoLabels, fn)
}

// pass returns the parser of a new pass, at the first data row: the one
// Open read the header with, or a fresh one on the file opened again.
func (f *textFile) pass() (textRows, *counter, error) {
	if f.next != nil {
		p, n := f.next, f.nextN
		f.next, f.nextN = nil, nil
		return p, n, nil
	}
	r, n, err := f.open()
	if err != nil {
		return nil, nil, err
	}
	p, err := f.parser(r)
	if err != nil {
		return nil, nil, err
	}
	cols := f.width
	switch q := p.(type) {
	case *delimited:
		cols = q.d
		if !slices.Equal(q.l.cols, f.columns) {
			cols = -1
		}
	case *arffRows:
		cols = q.d
	}
	if cols != f.cols {
		return nil, nil, &Error{Path: f.name, Err: errors.New("the file's header changed since it was opened")}
	}
	return p, n, nil
}

func (f *textFile) scan(ctx context.Context, max int, labels bool, fn func(lo int, X mat.Matrix, y []int) error) error {
	checkMax(max)
	if !f.mu.TryLock() {
		return errConcurrent
	}
	defer f.mu.Unlock()
	if f.closed {
		return errClosed
	}
	p, n, err := f.pass()
	if err != nil {
		return err
	}
	f.cur = p
	most := max
	switch {
	case f.rows >= 0:
		most = min(most, f.rows)
	case f.sparse:
		most = min(most, chunkValues)
	default:
		// Rows not known: at most maxChunkBytes of values, and no more
		// rows than the file's bytes can hold (a value takes at least
		// two with its separator).
		most = min(most, maxChunkBytes/(8*f.cols)+1)
		if f.text >= 0 {
			most = min(most, int(f.text/(2*int64(f.cols)))+1)
		}
	}
	c := newChunk(most, f.cols, f.sparse, labels, false, f.opt)
	lo := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		c.reset()
		err := p.fill(c)
		if err != nil && err != io.EOF {
			return err
		}
		if c.rows > 0 {
			if ferr := fn(lo, c.matrix(f.cols), c.labels()); ferr != nil {
				return ferr
			}
			lo += c.rows
		}
		f.opt.progress(n.n, f.size)
		if err == io.EOF {
			break
		}
	}
	if err := p.finish(); err != nil {
		return err
	}
	if f.rows >= 0 && f.rows != lo {
		return &Error{Path: f.name, Err: fmt.Errorf("the file changed since it was opened: %d rows, then %d", f.rows, lo)}
	}
	f.rows = lo
	f.labels, f.noted = p.labelRule(), p.notes()
	return nil
}
