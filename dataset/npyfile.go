package dataset

import (
	"archive/zip"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"gonum.org/v1/gonum/mat"
)

// array is a File over the array X of an .npy file or an .npz member:
// its rows are the first axis, read through the .npy decoder a chunk at a
// time, from any dtype and byte order the decoder reads. A random-access
// array (an .npy file, a stored .npz member) is read with ReadAt, its
// chunks and ReadRows alike (npyAt); a sequential one (gzip data, a
// deflated member, a stream) from the start of its data on each pass
// (npySeq).
type array struct {
	name   string
	opt    Options
	h      *npyHeader
	n, d   int
	shape  []int
	key    string // the .npz member ("X"), "" for an .npy file
	closer io.Closer
	fcol   []int // Fortran order: the offset in a row of each Fortran column

	// Random access: the data start at off in ra; mm, when not nil, maps
	// them (mapData), and passes read the values in place.
	ra  io.ReaderAt
	off int64
	mm  *mapped
	// Sequential: seq opens a new pass, at the first data byte; first is
	// the reader Open read the header from, for the first pass.
	seq   func() (io.ReadCloser, error)
	first io.ReadCloser

	y      *npzY // labels, nil when none
	labels Labels
	noted  []string

	mu     sync.Mutex
	closed atomic.Bool
}

// npyAt is an array read by ReadAt: a RowReader.
type npyAt struct{ *array }

// npySeq is an array read in order.
type npySeq struct{ *array }

var (
	_ RowReader = npyAt{}
	_ File      = npySeq{}
	_ RowReader = (*memFile)(nil)
	_ File      = (*textFile)(nil)
)

// newArray checks the shape of the array of header h as X and lays it
// out.
func newArray(path string, h *npyHeader, opt Options) (*array, error) {
	n, d, shape, err := arrayDims(path, h.shape)
	if err != nil {
		return nil, err
	}
	if opt.Shape != nil {
		if shape, err = applyShape(path, opt.Shape, d); err != nil {
			return nil, err
		}
	}
	a := &array{name: path, opt: opt, h: h, n: n, d: d, shape: shape, labels: Labels{Final: true}}
	if h.fortran && len(h.shape) > 1 {
		a.fcol = fortranCols(h.shape)
	}
	return a, nil
}

// fortranCols returns, for each "column" of a Fortran-order array of the
// given shape (an index of its trailing axes, the first fastest, as the
// file holds them), its offset within a row-major row.
func fortranCols(shape []int) []int {
	fo := newFortranOrder(shape[1:])
	fcol := make([]int, fo.size)
	for r := range fcol {
		fcol[r] = fo.next()
	}
	return fcol
}

// fortranOrder walks the trailing axes of a Fortran-order array (the
// first fastest, as the file holds them), giving each index's offset
// within a row-major row.
type fortranOrder struct {
	trail   []int // the trailing axes' sides
	cstride []int // their row-major strides
	idx     []int // the multi-index of the next offset
	off     int   // its row-major offset
	size    int   // the values of a row
}

func newFortranOrder(trail []int) *fortranOrder {
	fo := &fortranOrder{trail: trail, cstride: make([]int, len(trail)), idx: make([]int, len(trail)), size: 1}
	for a := len(trail) - 1; a >= 0; a-- {
		fo.cstride[a] = fo.size
		fo.size *= trail[a]
	}
	return fo
}

// next returns the row-major offset of the next Fortran-order index and
// advances the multi-index, the first axis fastest (wrapping to 0 after
// the last).
func (fo *fortranOrder) next() int {
	off := fo.off
	for a := range fo.trail {
		fo.idx[a]++
		fo.off += fo.cstride[a]
		if fo.idx[a] < fo.trail[a] {
			break
		}
		fo.off -= fo.cstride[a] * fo.trail[a]
		fo.idx[a] = 0
	}
	return off
}

// err returns a problem reading the array as the *Error of the file,
// naming the member of an .npz.
func (a *array) err(err error) error {
	if a.key != "" {
		err = fmt.Errorf("array %s: %w", a.key, err)
	}
	return &Error{Path: a.name, Err: err}
}

// checkSize is the error of an array whose data, need bytes, are not
// the avail bytes that follow its header: truncated, or followed by more.
func checkSize(h *npyHeader, need, avail int64) error {
	if need > avail {
		return fmt.Errorf("truncated: the header promises %v %s values (%d bytes) but only %d bytes follow", h.shape, h.descr, need, max(avail, 0))
	}
	if avail > need {
		return fmt.Errorf("more data follow the %s %s values (%d bytes) the header declares: its shape is wrong, or data were appended to the array", shapeText(h.shape), h.descr, need)
	}
	return nil
}

func (h *npyHeader) bytes() int64 { return int64(h.nelem) * int64(h.size) }

// openNPY opens an .npy file of size bytes: its header read, its rows
// read by ReadAt.
func openNPY(ra io.ReaderAt, size int64, path string, opt Options, closer io.Closer) (File, error) {
	h, used, err := readNPYHeader(io.NewSectionReader(ra, 0, size))
	if err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	if err := checkSize(h, h.bytes(), size-used); err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	a, err := newArray(path, h, opt)
	if err != nil {
		return nil, err
	}
	a.ra, a.off, a.closer = ra, used, closer
	a.mapData()
	return npyAt{a}, nil
}

// openNPYSeq opens an .npy stream (gzip data, standard input): open
// returns a reader at its first byte for each pass (ErrOnePass for a
// stream after the first). An array in Fortran order cannot be read by
// rows from a stream: it is read whole, as Load reads it, into a File in
// memory.
func openNPYSeq(open func() (io.Reader, *counter, error), size int64, path string, opt Options, closer io.Closer) (File, error) {
	r, _, err := open()
	if err != nil {
		return nil, err
	}
	var hb bytes.Buffer
	h, _, err := readNPYHeader(io.TeeReader(r, &hb))
	if err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	a, err := newArray(path, h, opt)
	if err != nil {
		return nil, err
	}
	if a.fcol != nil {
		ds, err := readNPYStream(io.MultiReader(&hb, r), -1, path, opt)
		if err != nil {
			return nil, err
		}
		return newMemFile(ds, closer), nil
	}
	a.closer, a.first = closer, io.NopCloser(r)
	a.seq = func() (io.ReadCloser, error) {
		r, _, err := open()
		if err != nil {
			return nil, err
		}
		if err := sameHeader(r, h); err != nil {
			return nil, &Error{Path: path, Err: err}
		}
		return io.NopCloser(r), nil
	}
	return npySeq{a}, nil
}

// sameHeader reads the .npy header of a new pass, which must be the one
// Open read.
func sameHeader(r io.Reader, h *npyHeader) error {
	h2, _, err := readNPYHeader(r)
	if err != nil {
		return err
	}
	if h2.descr != h.descr || h2.fortran != h.fortran || !slices.Equal(h2.shape, h.shape) {
		return errors.New("the array changed since it was opened")
	}
	return nil
}

// openNPZ opens an .npz: X by ReadAt when it is stored, in order when it
// is deflated (in memory, as Load reads it, when it is also in Fortran
// order); the labels (y, or the array Options.Label names) are read
// through once, to decide what they are, and then beside the rows.
func openNPZ(ra io.ReaderAt, size int64, path string, opt Options, closer io.Closer) (File, error) {
	arc, err := openArchive(ra, size, path)
	if err != nil {
		return nil, err
	}
	fx := arc.members["X"]
	if fx == nil {
		return nil, arc.noX()
	}
	yname, err := arc.labelName(opt)
	if err != nil {
		return nil, err
	}
	fy := arc.members[yname]
	if fy == nil && opt.Label != "" {
		return nil, arc.noLabel(opt)
	}
	var a *array
	var f File
	if fx.Method == zip.Store {
		off, err := fx.DataOffset()
		if err != nil {
			return nil, &Error{Path: path, Err: fmt.Errorf("array X: %w", err)}
		}
		avail, _ := arc.limits(fx)
		h, used, err := readNPYHeader(io.NewSectionReader(ra, off, avail))
		if err == nil {
			err = checkSize(h, h.bytes(), avail-used)
		}
		if err != nil {
			return nil, &Error{Path: path, Err: fmt.Errorf("array X: %w", err)}
		}
		if a, err = newArray(path, h, opt); err != nil {
			return nil, err
		}
		a.ra, a.off = ra, off+used
		a.mapData()
		f = npyAt{a}
	} else {
		open := func() (io.ReadCloser, *npyHeader, error) {
			rc, err := arc.open("X", fx)
			if err != nil {
				return nil, nil, err
			}
			avail, _ := arc.limits(fx)
			h, used, err := readNPYHeader(rc)
			if err == nil && h.bytes() > avail-used {
				err = checkSize(h, h.bytes(), avail-used)
			}
			if err != nil {
				rc.Close()
				return nil, nil, &Error{Path: path, Err: fmt.Errorf("array X: %w", err)}
			}
			return rc, h, nil
		}
		rc, h, err := open()
		if err != nil {
			return nil, err
		}
		if a, err = newArray(path, h, opt); err != nil {
			rc.Close()
			return nil, err
		}
		if a.fcol != nil {
			rc.Close()
			ds, err := readNPZAt(ra, size, path, opt)
			if err != nil {
				return nil, err
			}
			return newMemFile(ds, closer), nil
		}
		a.first = rc
		a.seq = func() (io.ReadCloser, error) {
			rc, h2, err := open()
			if err != nil {
				return nil, err
			}
			if h2.descr != h.descr || h2.fortran != h.fortran || !slices.Equal(h2.shape, h.shape) {
				rc.Close()
				return nil, &Error{Path: path, Err: errors.New("array X: the array changed since it was opened")}
			}
			return rc, nil
		}
		f = npySeq{a}
	}
	a.key, a.closer = "X", closer
	if fy != nil {
		a.y = &npzY{arc: arc, key: yname, f: fy, named: opt.Label != ""}
		if err := a.y.prescan(a); err != nil {
			if a.first != nil {
				a.first.Close()
			}
			return nil, err
		}
	}
	return f, nil
}

func (a *array) Name() string         { return a.name }
func (a *array) Dims() (int, int)     { return a.n, a.d }
func (a *array) Sparse() bool         { return false }
func (a *array) Shape() []int         { return slices.Clone(a.shape) }
func (a *array) Columns() []string    { return nil }
func (a *array) ColumnNumbers() []int { return nil }
func (a *array) Notes() []string      { return slices.Clone(a.noted) }
func (a *array) Labels() Labels       { return a.labels }

// FiniteValues reports that every value a pass hands out is finite: the
// file checks them as it reads (a NaN or an infinity is an *Error naming
// its row and column), so a detector's pass need not check them again.
func (a *array) FiniteValues() bool { return true }

func (a *array) Close() error {
	a.closed.Store(true)
	// The map goes now, or with the pass in progress when it ends: Close
	// does not wait for a pass whose fn is blocked (an interrupted score
	// writing to a pipe that no longer reads).
	if a.mu.TryLock() {
		a.unmap()
		a.mu.Unlock()
	}
	if a.first != nil {
		a.first.Close()
	}
	if a.closer != nil {
		return a.closer.Close()
	}
	return nil
}

// unmap removes the map, if any; a.mu is held.
func (a *array) unmap() {
	if a.mm != nil {
		a.mm.unmap()
		a.mm = nil
	}
}

func (a *array) Scan(ctx context.Context, max int, fn func(lo int, X mat.Matrix) error) error {
	return a.scan(ctx, max, false, func(lo int, X mat.Matrix, _ []int) error { return fn(lo, X) })
}

func (a *array) ScanLabeled(ctx context.Context, max int, fn func(lo int, X mat.Matrix, y []int) error) error {
	return a.scan(ctx, max, a.y != nil, fn)
}

// scanMapped is scan over the mapped data (mapData): each chunk is a
// matrix on the mapping itself, checked for NaN and ±Inf, its pages read
// ahead before and released after fn. A file truncated while it is
// mapped makes a read of the lost pages fault: in this goroutine (the
// check, and whatever fn does here) the fault is returned as an error;
// a method that hands the chunk to goroutines of its own, unscaled,
// would still crash there, as any reader of a mapped file does.
func (a *array) scanMapped(ctx context.Context, max int, yp *yPass, fn func(lo int, X mat.Matrix, y []int) error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer a.faultErr(&err)
	m := a.mm
	p := m.pass()
	defer p.done(len(m.data))
	step := min(max, a.n)
	rowBytes := int64(a.d) * 8
	for lo := 0; lo < a.n; lo += step {
		if err := ctx.Err(); err != nil {
			return err
		}
		if a.closed.Load() { // Close during the pass
			return errClosed
		}
		k := min(step, a.n-lo)
		p.use(lo*a.d, (lo+k)*a.d)
		data := m.data[lo*a.d : (lo+k)*a.d]
		if !finite64(unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(data))), len(data))) {
			if err := nonFinite(a.name, data, a.d, lo); err != nil {
				return err
			}
		}
		var y []int
		if yp != nil {
			var err error
			if y, err = yp.next(k); err != nil {
				return err
			}
		}
		if err := fn(lo, mat.NewDense(k, a.d, data), y); err != nil {
			return err
		}
		p.done((lo + k) * a.d)
		a.opt.progress(int64(lo+k)*rowBytes, int64(a.n)*rowBytes)
	}
	if yp != nil {
		return yp.end()
	}
	return nil
}

// faultErr, deferred with the goroutine's debug.SetPanicOnFault set,
// turns a fault reading the mapped file into *err; other panics go on.
func (a *array) faultErr(err *error) {
	if r := recover(); r != nil {
		if _, fault := r.(interface{ Addr() uintptr }); !fault {
			panic(r)
		}
		*err = a.err(errors.New("the file changed while it was read: it was truncated or overwritten"))
	}
}

// decoder returns a decoder of the array's data, for one pass or one
// ReadRows.
func (a *array) decoder() *npyDecoder {
	return &npyDecoder{h: a.h, finite: true, swap: a.h.size > 1 && a.h.order != nativeOrder}
}

func (a *array) scan(ctx context.Context, max int, labels bool, fn func(lo int, X mat.Matrix, y []int) error) error {
	checkMax(max)
	if !a.mu.TryLock() {
		return errConcurrent
	}
	defer func() {
		if a.closed.Load() { // closed during the pass
			a.unmap()
		}
		a.mu.Unlock()
	}()
	if a.closed.Load() {
		return errClosed
	}
	var r io.ReadCloser
	if a.ra == nil {
		if a.first != nil {
			r, a.first = a.first, nil
		} else {
			var err error
			if r, err = a.seq(); err != nil {
				return err
			}
		}
		defer r.Close()
	}
	var yp *yPass
	if labels {
		var err error
		if yp, err = a.y.pass(); err != nil {
			return err
		}
		defer yp.close()
	}
	if a.mm != nil {
		return a.scanMapped(ctx, max, yp, fn)
	}
	c := newChunk(min(max, a.n), a.d, false, false, true, a.opt)
	dec := a.decoder()
	rowBytes := int64(a.d) * int64(a.h.size)
	for lo := 0; lo < a.n; lo += c.max {
		if err := ctx.Err(); err != nil {
			return err
		}
		m := min(c.max, a.n-lo)
		data := c.data[:m*a.d]
		dec.done, dec.finite = lo*a.d, true
		var err error
		switch {
		case a.ra != nil && a.fcol != nil:
			err = a.readFortran(dec, lo, m, data)
		case a.ra != nil:
			err = dec.readRows(io.NewSectionReader(a.ra, a.off+int64(lo)*rowBytes, int64(m)*rowBytes), data)
		default:
			err = dec.readRows(r, data)
		}
		if err != nil {
			return a.err(err)
		}
		if !dec.finite {
			if err := nonFinite(a.name, data, a.d, lo); err != nil {
				return err
			}
		}
		var y []int
		if yp != nil {
			if y, err = yp.next(m); err != nil {
				return err
			}
		}
		if err := fn(lo, mat.NewDense(m, a.d, data), y); err != nil {
			return err
		}
		a.opt.progress(int64(lo+m)*rowBytes, int64(a.n)*rowBytes)
	}
	if r != nil {
		// The data end where the header says (and a zip member's
		// CRC-32 is checked), as Load checks them.
		if err := checkNPYEnd(r, a.h, a.h.bytes()); err != nil {
			return a.err(err)
		}
	}
	if yp != nil {
		return yp.end()
	}
	return nil
}

// readRows reads C-order data into data, whole rows, from r.
func (d *npyDecoder) readRows(r io.Reader, data []float64) error {
	if d.h.kind == 'f' && d.h.size == 8 {
		return d.readF8(r, data)
	}
	return d.readC(r, data)
}

// readFortran reads rows lo … lo+m−1 of a Fortran-order array into data:
// of each Fortran column, the m values of those rows, a panel of
// columns (up to fortranScratch bytes) at a time, transposed into the
// rows; one read per column, or per panel when the chunk is every row.
func (a *array) readFortran(dec *npyDecoder, lo, m int, data []float64) error {
	size := int64(a.h.size)
	colBytes := int64(m) * size
	w := int(max(1, min(int64(a.d), int64(fortranScratch)/colBytes)))
	for r0 := 0; r0 < a.d; r0 += w {
		ww := min(w, a.d-r0)
		raw := dec.raw(ww * int(colBytes))
		if m == a.n {
			if got, err := a.ra.ReadAt(raw, a.off+int64(r0)*colBytes); err != nil {
				return dec.readErr(err, got)
			}
		} else {
			for k := range ww {
				off := a.off + (int64(r0+k)*int64(a.n)+int64(lo))*size
				if got, err := a.ra.ReadAt(raw[int64(k)*colBytes:int64(k+1)*colBytes], off); err != nil {
					return dec.readErr(err, got)
				}
			}
		}
		dec.prepare(raw)
		dec.transpose(data, a.d, raw, m, a.fcol[r0:r0+ww])
	}
	return nil
}

// Runs of nearby rows are read at once: ReadRows reads through a gap of
// up to readGap bytes rather than make another call (a read costs about
// what copying 16 KiB from the page cache does: 20,000 random rows of a
// 1,000,000 × 10 float64 file took 45–55 ms with a 4 KiB gap, 13–24 ms
// with 16 KiB), up to readSpan bytes a read.
const (
	readGap  = 16 << 10
	readSpan = 1 << 20
)

// ReadRows reads the rows idx with ReadAt, mapped or not (a sample's
// rows lie far apart: faulting in a page, and the pages around it, for
// each made iforest's fit of 100,000,000 rows 0.69–0.78 s against 0.41 s
// by ReadAt): in C order, one read per run
// of nearby rows (in the order of the file, whatever the order of idx);
// in Fortran order, one read per column and run of nearby rows, so a
// sample of many rows reads each column in long runs and a few rows cost
// a read per column each.
func (f npyAt) ReadRows(ctx context.Context, idx []int) (mat.Matrix, error) {
	a := f.array
	checkRows(idx, a.n)
	if a.closed.Load() {
		return nil, errClosed
	}
	out := mat.NewDense(len(idx), a.d, nil)
	ord := make([]int, len(idx))
	for i := range ord {
		ord[i] = i
	}
	slices.SortFunc(ord, func(p, q int) int { return cmp.Compare(idx[p], idx[q]) })
	dec := a.decoder()
	var err error
	if a.fcol == nil {
		err = a.readRowsC(ctx, dec, idx, ord, out)
	} else {
		err = a.readRowsF(ctx, dec, idx, ord, out)
	}
	if err != nil {
		return nil, err
	}
	if !dec.finite {
		raw := out.RawMatrix()
		for _, p := range ord {
			row := raw.Data[p*raw.Stride : p*raw.Stride+a.d]
			if err := nonFinite(a.name, row, a.d, idx[p]); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// spans calls fn with each run ord[i:j] of positions whose rows idx (in
// increasing order along ord) are at most gap apart and span less than
// most: rows idx[ord[i]] to idx[ord[j−1]] are read at once.
func spans(idx, ord []int, gap, most int, fn func(i, j int) error) error {
	for i := 0; i < len(ord); {
		a0 := idx[ord[i]]
		j := i + 1
		for j < len(ord) && idx[ord[j]]-idx[ord[j-1]] <= gap && idx[ord[j]]-a0 < most {
			j++
		}
		if err := fn(i, j); err != nil {
			return err
		}
		i = j
	}
	return nil
}

func (a *array) readRowsC(ctx context.Context, dec *npyDecoder, idx, ord []int, out *mat.Dense) error {
	rowBytes := a.d * a.h.size
	return spans(idx, ord, max(1, readGap/rowBytes), max(1, readSpan/rowBytes), func(i, j int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		r0 := idx[ord[i]]
		raw := dec.raw((idx[ord[j-1]] - r0 + 1) * rowBytes)
		if got, err := a.ra.ReadAt(raw, a.off+int64(r0)*int64(rowBytes)); err != nil {
			dec.done = r0 * a.d
			return a.err(dec.readErr(err, got))
		}
		for k := i; k < j; k++ {
			p := ord[k]
			dst := out.RawRowView(p)
			if k > i && idx[p] == idx[ord[k-1]] {
				copy(dst, out.RawRowView(ord[k-1]))
				continue
			}
			src := raw[(idx[p]-r0)*rowBytes:][:rowBytes]
			dec.prepare(src)
			dec.convert(dst, src)
		}
		return nil
	})
}

func (a *array) readRowsF(ctx context.Context, dec *npyDecoder, idx, ord []int, out *mat.Dense) error {
	size := a.h.size
	data, stride := out.RawMatrix().Data, out.RawMatrix().Stride
	for r := 0; r < a.d; r++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		base, col := a.off+int64(r)*int64(a.n)*int64(size), a.fcol[r]
		err := spans(idx, ord, max(1, readGap/size), max(1, readSpan/size), func(i, j int) error {
			r0 := idx[ord[i]]
			raw := dec.raw((idx[ord[j-1]] - r0 + 1) * size)
			if got, err := a.ra.ReadAt(raw, base+int64(r0)*int64(size)); err != nil {
				dec.done = r*a.n + r0
				return a.err(dec.readErr(err, got))
			}
			dec.prepare(raw)
			for k := i; k < j; k++ {
				p := ord[k]
				dst := data[p*stride+col:][:1]
				if k > i && idx[p] == idx[ord[k-1]] {
					dst[0] = data[ord[k-1]*stride+col]
					continue
				}
				dec.convert(dst, raw[(idx[p]-r0)*size:][:size])
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// npzY is the label array of an .npz File (y, or the array
// Options.Label names), read beside the rows of X, in the same chunks.
type npzY struct {
	arc   *npzArchive
	key   string
	f     *zip.File
	named bool
	h     *npyHeader
}

// yPass reads the labels of one pass.
type yPass struct {
	y   *npzY
	rc  io.ReadCloser
	dec *npyDecoder
	buf []float64
	out []int
}

// pass opens the label array at its first value.
func (y *npzY) pass() (*yPass, error) {
	rc, err := y.arc.open(y.key, y.f)
	if err != nil {
		return nil, err
	}
	h, used, err := readNPYHeader(rc)
	if avail, _ := y.arc.limits(y.f); err == nil && h.bytes() > avail-used {
		err = checkSize(h, h.bytes(), avail-used)
	}
	if err != nil {
		rc.Close()
		return nil, y.err(err)
	}
	if y.h != nil && (h.descr != y.h.descr || !slices.Equal(h.shape, y.h.shape)) {
		rc.Close()
		return nil, y.err(errors.New("the array changed since it was opened"))
	}
	y.h = h
	return &yPass{y: y, rc: rc, dec: &npyDecoder{h: h, finite: true, swap: h.size > 1 && h.order != nativeOrder}}, nil
}

func (y *npzY) err(err error) error {
	return &Error{Path: y.arc.path, Err: fmt.Errorf("array %s: %w", y.key, err)}
}

// next returns the next m labels.
func (p *yPass) next(m int) ([]int, error) {
	if cap(p.buf) < m {
		p.buf, p.out = make([]float64, m), make([]int, m)
	}
	buf, out := p.buf[:m], p.out[:m]
	if err := p.dec.readC(p.rc, buf); err != nil {
		return nil, p.y.err(err)
	}
	for i, v := range buf {
		out[i] = int(v)
	}
	return out, nil
}

// end checks that the labels end where their header says (and a
// member's CRC-32).
func (p *yPass) end() error {
	if err := checkNPYEnd(p.rc, p.y.h, p.y.h.bytes()); err != nil {
		return p.y.err(err)
	}
	return nil
}

func (p *yPass) close() { p.rc.Close() }

// prescan reads the labels through once, as Load's fromArrays checks
// them: a vector of n integers; anomaly labels when X is 2-D or the
// array is named, unless (not named) some label is not −1, 0 or 1, a
// class index then; labels 1 and −1 with the 1s a majority by the
// one-class convention.
func (y *npzY) prescan(a *array) error {
	p, err := y.pass()
	if err != nil {
		return err
	}
	defer p.close()
	// In Load's order: the values read through (a read error, data past
	// the header's length), then the shape, then the values.
	h := y.h
	var count labelCount
	frac, out := -1, -1 // the first row of a non-integer, of a label out of {−1, 0, 1}
	var fracV float64
	outV := 0
	const step = 1 << 16
	for lo := 0; lo < h.nelem; lo += step {
		m := min(step, h.nelem-lo)
		if cap(p.buf) < m {
			p.buf = make([]float64, m)
		}
		buf := p.buf[:m]
		if err := p.dec.readC(p.rc, buf); err != nil {
			return y.err(err)
		}
		for i, f := range buf {
			if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
				if frac < 0 {
					frac, fracV = lo+i, f
				}
				continue
			}
			v := int(f)
			if (v < -1 || v > 1) && out < 0 {
				out, outV = lo+i, v
			}
			count.add(v)
		}
	}
	if err := p.end(); err != nil {
		return err
	}
	if !(len(h.shape) == 1 && h.shape[0] == a.n || len(h.shape) == 2 && h.shape[0] == a.n && h.shape[1] == 1) {
		return &Error{Path: a.name, Err: fmt.Errorf("%s has shape %v, want (%d,) to match X", y.key, h.shape, a.n)}
	}
	binary := len(a.h.shape) <= 2 || y.named
	if frac >= 0 {
		return &Error{Path: a.name, Row: frac + 1, Err: fmt.Errorf("%s holds %v, want an integer", y.key, fracV)}
	}
	if out >= 0 {
		if y.named {
			return &Error{Path: a.name, Row: out + 1, Err: fmt.Errorf("label array %s holds %d: anomaly labels are 1 (anomaly), 0 (normal) and -1 (unlabeled); a class index is read as y, without naming it", y.key, outV)}
		}
		binary = false
	}
	if !binary {
		a.labels = Labels{Kind: ClassLabels, Final: true}
		return nil
	}
	a.labels = Labels{Kind: AnomalyLabels, OneClass: count.oneClass(), Final: true}
	if a.labels.OneClass {
		a.noted = append(a.noted, count.note())
	}
	return nil
}
