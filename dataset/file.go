package dataset

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"
)

// File is a data file opened for reading in chunks of rows, rather than
// loaded whole: every format Load reads opens as one (Open, OpenStream),
// and peak memory is then a few chunks, whatever the file's size. A File
// has the methods of detector.Source, so the detectors fit from it and
// score it chunk by chunk.
//
// A File is not safe for concurrent use, but for ReadRows of a RowReader,
// which may run beside anything else.
type File interface {
	// Name is the path, or the name OpenStream was given.
	Name() string
	// Dims returns the number of rows, or −1 while it is not known (a
	// text file no pass has read to its end), and the number of columns
	// (features), which is known from Open on.
	Dims() (rows, cols int)
	// Sparse reports whether the chunks are *sparse.CSR (a LIBSVM file)
	// rather than *mat.Dense.
	Sparse() bool
	// Shape is the sample shape of tensor data (an N-d array, or
	// Options.Shape), nil for plain vectors, as Dataset.Shape.
	Shape() []int
	// Columns and ColumnNumbers name the features and give the column of
	// the file each comes from, as Dataset's fields (nil for .npy/.npz
	// and LIBSVM files).
	Columns() []string
	ColumnNumbers() []int
	// Notes says what the reader chose that the user should know of, as
	// Dataset.Notes; a note that only the whole column decides (labels
	// read by the one-class convention) appears once a pass has read
	// every row.
	Notes() []string
	// Labels says what the labels ScanLabeled hands over are (see
	// Labels).
	Labels() Labels
	// Scan calls fn with the rows in order, in chunks of at most max
	// rows (max ≥ 1): X holds rows lo, lo+1, … as a *mat.Dense or a
	// *sparse.CSR that is valid only during the call (its memory is
	// reused for the next chunk). Scan stops at the first error of fn
	// and returns it, and returns ctx.Err() when ctx ends. Every call
	// reads from the first row: a file is read again (a text file
	// reopened, its header read again), a stream (standard input, a
	// named pipe) can be read once and a second call returns
	// ErrOnePass. A problem with the data is an *Error naming the file,
	// row and column as Load's are, met when the pass reaches it.
	Scan(ctx context.Context, max int, fn func(lo int, X mat.Matrix) error) error
	// ScanLabeled is Scan with the labels of the chunk's rows: y[i] is
	// the label of row lo+i as the file writes it (see Labels), valid
	// only during the call; y is nil when the file has no labels.
	ScanLabeled(ctx context.Context, max int, fn func(lo int, X mat.Matrix, y []int) error) error
	// Close releases the file. A File from OpenStream does not close the
	// reader it was given.
	Close() error
}

// RowReader is a File that also reads rows by index: an .npy file, a
// stored .npz member (through ReadAt, one read per run of nearby rows),
// or data that had to be read into memory. A fit that needs a sample of
// a large file draws its rows without reading the rest.
type RowReader interface {
	File
	// ReadRows returns the rows idx (each in [0, rows), in any order,
	// repeats allowed) as a new len(idx) × cols matrix. It is safe to
	// call beside a Scan and other ReadRows.
	ReadRows(ctx context.Context, idx []int) (mat.Matrix, error)
}

// ErrOnePass is returned by the second Scan of a File that can be read
// only once: standard input, a named pipe.
var ErrOnePass = errors.New("the data can be read only once (a stream): read it into memory, or fit on a sample (--sample)")

// Open opens the data file at path for reading in chunks of rows. The
// format follows from the extension, as for Load, and so do the errors
// of a missing file or an unknown extension; a path that is not a
// regular file (a named pipe, a device) is a stream, read as OpenStream
// reads one. Open reads the header (CSV, TSV, ARFF), the array headers
// (.npy, .npz) or, for a LIBSVM file, every line once to find its width
// (see the package documentation); the rows are read by Scan.
func Open(path string, opt Options) (File, error) {
	if _, err := reader(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{Path: path, Err: openErr(err)}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &Error{Path: path, Err: openErr(err)}
	}
	if st.IsDir() {
		f.Close()
		return nil, &Error{Path: path, Err: errors.New("is a directory, not a data file")}
	}
	var file File
	if !st.Mode().IsRegular() {
		file, err = openStream(f, streamFormat(path), path, opt, f)
	} else {
		file, err = openAt(f, st.Size(), path, opt, f)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return file, nil
}

// OpenStream opens a data set on r, a stream of unknown length such as
// standard input, for one pass of Scan: format is one of StreamFormats,
// and data that start with the gzip magic number are decompressed, .npy
// data are read as .npy, whatever format says, as ReadStream does. The
// header is read at once. A LIBSVM stream whose width Options.Features
// does not give, and an .npy array in Fortran order, cannot be read in
// chunks of rows from a stream: they are read into memory under
// Options.MaxBytes, as ReadStream reads them, and the File reads rows
// from there (a RowReader, any number of passes).
func OpenStream(r io.Reader, format, name string, opt Options) (File, error) {
	return openStream(r, format, name, opt, nil)
}

// openAt opens a file of size bytes read through ra; closer, when not
// nil, is closed by Close.
func openAt(ra io.ReaderAt, size int64, path string, opt Options, closer io.Closer) (File, error) {
	ext := strings.ToLower(filepath.Ext(path))
	gz := ext == ".gz"
	if gz {
		ext = strings.ToLower(filepath.Ext(strings.TrimSuffix(path, filepath.Ext(path))))
	}
	open := func() (io.Reader, *counter, error) {
		c := &counter{r: io.NewSectionReader(ra, 0, size)}
		if !gz {
			return c, c, nil
		}
		zr, err := newGzipMembers(bufio.NewReader(c))
		if err != nil {
			return nil, nil, &Error{Path: path, Err: fmt.Errorf("not a gzip file: %v", err)}
		}
		return truncation{zr}, c, nil
	}
	switch {
	case ext == ".npy" && !gz:
		return openNPY(ra, size, path, opt, closer)
	case ext == ".npz":
		return openNPZ(ra, size, path, opt, closer)
	case ext == ".npy":
		return openNPYSeq(open, size, path, opt, closer)
	}
	return openText(ext, open, size, path, opt, closer)
}

// openStream opens a stream: r read once.
func openStream(r io.Reader, format, name string, opt Options, closer io.Closer) (File, error) {
	f := strings.ToLower(format)
	gz := strings.HasSuffix(f, ".gz")
	ext := strings.TrimSuffix(f, ".gz")
	if _, ok := streams[ext]; !ok {
		return nil, &Error{Path: name, Err: fmt.Errorf("format %q cannot be read from a stream: the formats are %s", format, strings.Join(StreamFormats(), ", "))}
	}
	c := &counter{r: r}
	br := bufio.NewReader(c)
	if _, err := br.Peek(1); err != nil && err != io.EOF {
		return nil, &Error{Path: name, Err: fmt.Errorf("cannot read: %v", err)}
	}
	if isGzip(br) {
		gz = true
	}
	var in *bufio.Reader = br
	if gz {
		zr, err := newGzipMembers(br)
		if err != nil {
			return nil, &Error{Path: name, Err: fmt.Errorf("not gzip data: %v", err)}
		}
		in = bufio.NewReader(truncation{zr})
	}
	b, _ := in.Peek(6)
	switch {
	case string(b) == "\x93NUMPY":
		ext = ".npy"
	case len(b) >= 4 && string(b[:4]) == "PK\x03\x04":
		return nil, &Error{Path: name, Err: errors.New("a zip archive (an .npz?): an .npz needs random access; give it as a file, not a stream")}
	}
	used := false
	open := func() (io.Reader, *counter, error) {
		if used {
			return nil, nil, ErrOnePass
		}
		used = true
		return in, c, nil
	}
	if ext == ".npy" {
		return openNPYSeq(open, -1, name, opt, closer)
	}
	return openText(ext, open, -1, name, opt, closer)
}

// counter counts the bytes read through it: the progress of a pass.
type counter struct {
	r io.Reader
	n int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// chunk is the buffer a pass fills with rows: dense values, d a row, or
// sparse rows; and their labels when they are kept.
type chunk struct {
	max, rows, d int
	data         []float64 // dense: max·d values; sparse: the stored values
	y            []int     // nil: labels not kept
	sparse       bool
	ind, indptr  []int
}

// chunkValues is the number of stored values after which a sparse chunk
// takes no further row: memory stays bounded whatever the width of the
// rows (a row is never split).
const chunkValues = 1 << 20

// maxChunkBytes bounds the dense chunk of a file whose number of rows is
// not known, whatever max Scan is given: a chunk may hold fewer rows.
const maxChunkBytes = 64 << 20

// newChunk returns a chunk of at most most rows of d values (sparse or
// dense), at most rows when that is known (not −1), at most
// maxChunkBytes of dense values otherwise.
func newChunk(most, rows, d int, sparse, labels bool) *chunk {
	if rows < 0 {
		most = min(most, maxChunkBytes/(8*max(d, 1))+1)
	} else {
		most = min(most, rows)
	}
	most = max(most, 1)
	c := &chunk{max: most, d: d, sparse: sparse}
	if sparse {
		c.indptr = make([]int, 1, most+1)
	} else {
		c.data = make([]float64, most*d)
	}
	if labels {
		c.y = make([]int, most)
	}
	return c
}

func (c *chunk) reset() {
	c.rows = 0
	if c.sparse {
		c.indptr, c.ind, c.data = c.indptr[:1], c.ind[:0], c.data[:0]
	}
}

// matrix returns the rows of the chunk (rows > 0), cols wide.
func (c *chunk) matrix(cols int) mat.Matrix {
	if c.sparse {
		return sparse.NewCSR(c.rows, cols, c.indptr[:c.rows+1], c.ind, c.data)
	}
	return mat.NewDense(c.rows, c.d, c.data[:c.rows*c.d])
}

func (c *chunk) labels() []int {
	if c.y == nil {
		return nil
	}
	return c.y[:c.rows]
}

// fillDense reads rows of p into c until it is full; io.EOF when the
// data end.
func fillDense(p denseRows, c *chunk) error {
	d := c.d
	for c.rows < c.max {
		if err := p.read(); err != nil {
			return err
		}
		k := c.rows * d
		lab, err := p.parse(c.data[k : k+d])
		if err != nil {
			return err
		}
		if c.y != nil {
			c.y[c.rows] = lab
		}
		c.rows++
	}
	return nil
}

// progress reports the bytes a pass has read, of total (−1 when not
// known), to opt.Progress.
func (opt Options) progress(done, total int64) {
	if opt.Progress != nil {
		opt.Progress(done, total)
	}
}

// checkMax panics on a chunk size below 1: a programmer's mistake.
func checkMax(max int) {
	if max < 1 {
		panic(fmt.Sprintf("dataset: Scan with max %d: a chunk holds at least one row", max))
	}
}

// errConcurrent is the error of a Scan called while another runs.
var errConcurrent = errors.New("dataset: Scan called while another Scan of the same File is under way")

// errClosed is the error of a File used after Close.
var errClosed = errors.New("dataset: the File is closed")
