package dataset

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/kernelad/anomaly/internal/fastmath"
	"github.com/kernelad/anomaly/internal/hugepage"
	"github.com/kernelad/anomaly/internal/parallel"
	kflate "github.com/klauspost/compress/flate"
	"gonum.org/v1/gonum/mat"
)

// npyArray is a decoded .npy array: its values converted to float64 in
// C (row-major) order, and its shape. finite is false when some value is
// NaN or infinite.
type npyArray struct {
	shape  []int
	data   []float64
	finite bool
}

// npyHeader is the parsed header of an .npy file.
type npyHeader struct {
	descr   string
	kind    byte // 'b', 'i', 'u' or 'f'
	size    int  // bytes per element
	order   binary.ByteOrder
	fortran bool
	shape   []int
	nelem   int
}

// maxNPYHeader bounds the header length we accept (numpy itself refuses
// headers above 10,000 bytes by default).
const maxNPYHeader = 1 << 16

var npyMagic = []byte("\x93NUMPY")

// readNPYHeader reads and checks the magic string, version and header
// dictionary of an .npy stream, leaving r at the first data byte. It returns
// the header and the number of bytes consumed.
func readNPYHeader(r io.Reader) (*npyHeader, int64, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, 0, errors.New("not an .npy file: too short for the header")
	}
	if !bytes.Equal(pre[:6], npyMagic) {
		return nil, 0, errors.New("not an .npy file: bad magic string")
	}
	var hlen int
	used := int64(8)
	switch major := pre[6]; major {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, 0, errors.New("truncated .npy header")
		}
		hlen = int(binary.LittleEndian.Uint16(b[:]))
		used += 2
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, 0, errors.New("truncated .npy header")
		}
		h := binary.LittleEndian.Uint32(b[:])
		if h > maxNPYHeader {
			return nil, 0, fmt.Errorf(".npy header of %d bytes is too long (limit %d)", h, maxNPYHeader)
		}
		hlen = int(h)
		used += 4
	default:
		return nil, 0, fmt.Errorf("unsupported .npy format version %d.%d", major, pre[7])
	}
	buf := make([]byte, hlen)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, 0, errors.New("truncated .npy header")
	}
	used += int64(hlen)
	h, err := parseNPYDict(buf)
	if err != nil {
		return nil, 0, fmt.Errorf("bad .npy header: %v", err)
	}
	return h, used, nil
}

// parseNPYDict parses the Python dict literal of an .npy header, e.g.
// {'descr': '<f8', 'fortran_order': True, 'shape': (683, 9), }.
func parseNPYDict(b []byte) (*npyHeader, error) {
	p := &pyParser{b: b}
	p.ws()
	if !p.eat('{') {
		return nil, errors.New("expected '{'")
	}
	h := &npyHeader{}
	var seen [3]bool
	for {
		p.ws()
		if p.eat('}') {
			break
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.ws()
		if !p.eat(':') {
			return nil, fmt.Errorf("expected ':' after %q", key)
		}
		p.ws()
		switch key {
		case "descr":
			if h.descr, err = p.str(); err != nil {
				return nil, fmt.Errorf("descr: %v (structured dtypes are not supported)", err)
			}
			seen[0] = true
		case "fortran_order":
			if h.fortran, err = p.boolean(); err != nil {
				return nil, fmt.Errorf("fortran_order: %v", err)
			}
			seen[1] = true
		case "shape":
			if h.shape, err = p.tuple(); err != nil {
				return nil, fmt.Errorf("shape: %v", err)
			}
			seen[2] = true
		default:
			return nil, fmt.Errorf("unexpected key %q", key)
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		p.ws()
		if p.eat('}') {
			break
		}
		return nil, errors.New("expected ',' or '}'")
	}
	if !seen[0] || !seen[1] || !seen[2] {
		return nil, errors.New("need the keys 'descr', 'fortran_order' and 'shape'")
	}
	if err := h.dtype(); err != nil {
		return nil, err
	}
	n := 1
	for _, s := range h.shape {
		if s != 0 && n > MaxElements/s {
			return nil, fmt.Errorf("shape %v holds more than %d values", h.shape, MaxElements)
		}
		n *= s
	}
	h.nelem = n
	return h, nil
}

// dtype decodes descr: an optional byte order (<, >, |, =) then a kind and a
// size, e.g. <f8, |u1, >i4, |b1.
func (h *npyHeader) dtype() error {
	d := h.descr
	h.order = binary.LittleEndian
	if d != "" {
		switch d[0] {
		case '<', '|', '=':
			d = d[1:]
		case '>':
			h.order = binary.BigEndian
			d = d[1:]
		}
	}
	ok := len(d) >= 2
	if ok {
		h.kind = d[0]
		size, err := strconv.Atoi(d[1:])
		h.size = size
		switch {
		case err != nil:
			ok = false
		case h.kind == 'b':
			ok = size == 1
		case h.kind == 'i' || h.kind == 'u':
			ok = size == 1 || size == 2 || size == 4 || size == 8
		case h.kind == 'f':
			ok = size == 2 || size == 4 || size == 8
		default:
			ok = false
		}
	}
	if !ok {
		return fmt.Errorf("unsupported dtype %q (need bool, int8-64, uint8-64, float16, float32 or float64)", h.descr)
	}
	return nil
}

type pyParser struct {
	b []byte
	i int
}

func (p *pyParser) ws() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

func (p *pyParser) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *pyParser) str() (string, error) {
	if p.i >= len(p.b) || (p.b[p.i] != '\'' && p.b[p.i] != '"') {
		return "", errors.New("expected a quoted string")
	}
	q := p.b[p.i]
	j := bytes.IndexByte(p.b[p.i+1:], q)
	if j < 0 {
		return "", errors.New("unterminated string")
	}
	s := string(p.b[p.i+1 : p.i+1+j])
	p.i += j + 2
	return s, nil
}

func (p *pyParser) boolean() (bool, error) {
	rest := p.b[p.i:]
	switch {
	case bytes.HasPrefix(rest, []byte("True")):
		p.i += 4
		return true, nil
	case bytes.HasPrefix(rest, []byte("False")):
		p.i += 5
		return false, nil
	}
	return false, errors.New("expected True or False")
}

func (p *pyParser) tuple() ([]int, error) {
	if !p.eat('(') {
		return nil, errors.New("expected '('")
	}
	shape := []int{}
	for {
		p.ws()
		if p.eat(')') {
			return shape, nil
		}
		j := p.i
		for j < len(p.b) && p.b[j] >= '0' && p.b[j] <= '9' {
			j++
		}
		if j == p.i {
			return nil, errors.New("expected a dimension (a non-negative integer)")
		}
		if j-p.i > 12 {
			return nil, fmt.Errorf("dimension %s is past 10^12: no array that large can be read", clip(string(p.b[p.i:j])))
		}
		v, _ := strconv.Atoi(string(p.b[p.i:j]))
		p.i = j
		p.eat('L')
		if len(shape) == 32 {
			return nil, errors.New("more than 32 dimensions")
		}
		shape = append(shape, v)
		p.ws()
		if p.eat(',') {
			continue
		}
		p.ws()
		if p.eat(')') {
			return shape, nil
		}
		return nil, errors.New("expected ',' or ')'")
	}
}

// readNPY reads one .npy stream. avail, when not negative, is the number of
// bytes the stream can hold; a header asking for more is an error before any
// allocation. trust is the number of data bytes the caller knows to be
// present (the file or stored zip member itself): when the header promises
// no more than that, the array is allocated once from the header and the
// data are read straight into it; otherwise (a deflated member whose header
// promises more than its compressed size makes plausible) the data are
// first read in growing chunks, so memory grows only with the bytes
// actually present.
func readNPY(r io.Reader, avail, trust int64, opt Options) (*npyArray, error) {
	h, used, err := readNPYHeader(r)
	if err != nil {
		return nil, err
	}
	if err := opt.checkBytes(8*int64(h.nelem), func() string { return fmt.Sprintf("its %s values", shapeText(h.shape)) }); err != nil {
		return nil, err
	}
	need := int64(h.nelem) * int64(h.size)
	if avail >= 0 && need > avail-used {
		return nil, fmt.Errorf("truncated: the header promises %v %s values (%d bytes) but only %d bytes follow", h.shape, h.descr, need, max(avail-used, 0))
	}
	src := r
	if opt.MaxBytes > 0 && 8*int64(h.nelem) <= opt.MaxBytes {
		// The budget admits the array (checked above): allocating it
		// at once costs no more than it allows, where growing a buffer
		// for bytes not yet seen held the old and the new one together
		// (a 96 MB .npy on standard input peaked at 208 MB under a
		// 110 MB budget).
		trust = max(trust, need)
	}
	if trust >= 0 && need > trust {
		raw, err := readGrowing(r, h)
		if err != nil {
			return nil, err
		}
		if h.kind == 'f' && h.size == 8 && !(h.fortran && len(h.shape) > 1) {
			// Already the final buffer: fix the byte order in place.
			d := &npyDecoder{h: h, finite: true, swap: h.order != nativeOrder}
			d.fixF8(raw)
			if err := checkNPYEnd(src, h, need); err != nil {
				return nil, err
			}
			return &npyArray{shape: h.shape, data: raw, finite: d.finite}, nil
		}
		r = bytes.NewReader(float64Bytes(raw))
	}
	d := &npyDecoder{h: h, finite: true, swap: h.size > 1 && h.order != nativeOrder}
	data := opt.values(h.nelem)
	switch {
	case h.nelem == 0:
	case h.fortran && len(h.shape) > 1:
		err = d.readFortran(r, data)
	case h.kind == 'f' && h.size == 8:
		err = d.readF8(r, data)
	default:
		err = d.readC(r, data)
	}
	if err != nil {
		return nil, err
	}
	if err := checkNPYEnd(src, h, need); err != nil {
		return nil, err
	}
	return &npyArray{shape: h.shape, data: data, finite: d.finite}, nil
}

// checkNPYEnd reads past the array the header declares: the data must end
// there. More bytes mean the header's shape is wrong or data were
// appended, and reading only the declared part would be a silent wrong
// answer (NumPy ignores them). Reaching the end also makes archive/zip
// compare a member's CRC-32.
func checkNPYEnd(r io.Reader, h *npyHeader, need int64) error {
	var one [1]byte
	n, err := io.ReadFull(r, one[:])
	if n > 0 {
		return fmt.Errorf("more data follow the %s %s values (%d bytes) the header declares: its shape is wrong, or data were appended to the array", shapeText(h.shape), h.descr, need)
	}
	if err != io.EOF {
		return fmt.Errorf("cannot read data: %v", err)
	}
	return nil
}

// nativeOrder is the byte order of this machine; data in it are used as
// they lie in memory, data in the other order are byte-swapped in place.
var nativeOrder binary.ByteOrder = binary.BigEndian

func init() {
	if binary.NativeEndian.Uint16([]byte{1, 0}) == 1 {
		nativeOrder = binary.LittleEndian
	}
}

// npyChunk is the number of bytes read at a time: small enough that a chunk
// is still in the CPU cache when it is converted, checked for NaN and, in a
// zip member, checksummed; large enough that the calls cost nothing.
const npyChunk = 256 << 10

// npyDecoder turns the data part of one .npy stream into float64 values.
type npyDecoder struct {
	h      *npyHeader
	swap   bool      // the data are not in the machine's byte order
	finite bool      // no NaN or infinity seen so far
	done   int       // values read completely, for the truncation message
	half   []float32 // a float16 panel widened for transpose
	// scratch is the raw bytes of a chunk, kept for the next chunk of a
	// File's pass.
	scratch []uint64
}

// raw returns scratch space of at least n bytes, aligned for any dtype.
func (d *npyDecoder) raw(n int) []byte {
	w := (n + 7) / 8
	if cap(d.scratch) < w {
		d.scratch = make([]uint64, w)
	}
	return uint64Bytes(d.scratch[:w])[:n]
}

// readErr turns a failed read into the message of a truncated or
// unreadable stream; got is the number of bytes of the current read.
func (d *npyDecoder) readErr(err error, got int) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("truncated: the header promises %d values of %s, the data ends before value %d", d.h.nelem, d.h.descr, d.done+got/d.h.size+1)
	}
	return fmt.Errorf("cannot read data: %v", err)
}

// readF8 reads float64 data in C order straight into data, chunk by chunk:
// no conversion, only a byte swap when the file's order is not the
// machine's.
func (d *npyDecoder) readF8(r io.Reader, data []float64) error {
	const per = npyChunk / 8
	for k := 0; k < len(data); k += per {
		c := data[k:min(k+per, len(data))]
		if got, err := io.ReadFull(r, float64Bytes(c)); err != nil {
			return d.readErr(err, got)
		}
		d.fixF8(c)
		d.done += len(c)
	}
	return nil
}

// fixF8 byte-swaps (when needed) float64 values read as raw bytes and
// notes whether they are all finite.
func (d *npyDecoder) fixF8(c []float64) {
	u := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(c))), len(c))
	if d.swap {
		for i, v := range u {
			u[i] = bits.ReverseBytes64(v)
		}
	}
	if d.finite && !finite64(u) {
		d.finite = false
	}
}

// readC reads C-order data of any dtype but float64 through a scratch
// chunk, converting it into data.
func (d *npyDecoder) readC(r io.Reader, data []float64) error {
	h := d.h
	scratch := d.raw(min(npyChunk, len(data)*h.size))
	per := npyChunk / h.size
	for k := 0; k < len(data); k += per {
		m := min(per, len(data)-k)
		raw := scratch[:m*h.size]
		if got, err := io.ReadFull(r, raw); err != nil {
			return d.readErr(err, got)
		}
		d.prepare(raw)
		d.convert(data[k:k+m], raw)
		d.done += m
	}
	return nil
}

// prepare byte-swaps raw values into the machine's order, maps bool bytes
// to 0/1 and checks floats for NaN and infinities.
func (d *npyDecoder) prepare(raw []byte) {
	h := d.h
	if d.swap {
		switch h.size {
		case 2:
			u := unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(raw))), len(raw)/2)
			for i, v := range u {
				u[i] = bits.ReverseBytes16(v)
			}
		case 4:
			u := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(raw))), len(raw)/4)
			for i, v := range u {
				u[i] = bits.ReverseBytes32(v)
			}
		case 8:
			u := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(raw))), len(raw)/8)
			for i, v := range u {
				u[i] = bits.ReverseBytes64(v)
			}
		}
	}
	switch {
	case h.kind == 'b':
		for i, v := range raw {
			if v != 0 {
				raw[i] = 1
			}
		}
	case h.kind == 'f' && d.finite:
		switch h.size {
		case 8:
			d.finite = finite64(unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(raw))), len(raw)/8))
		case 4:
			d.finite = finite32(unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(raw))), len(raw)/4))
		case 2:
			d.finite = finite16(unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(raw))), len(raw)/2))
		}
	}
}

// convert converts the prepared raw values (machine order) of h's dtype to
// float64 in dst, value by value in order.
func (d *npyDecoder) convert(dst []float64, raw []byte) {
	p := unsafe.Pointer(unsafe.SliceData(raw))
	n := len(dst)
	switch h := d.h; int(h.kind)<<4 | h.size {
	case 'b'<<4 | 1, 'u'<<4 | 1:
		convertTo(dst, unsafe.Slice((*uint8)(p), n))
	case 'i'<<4 | 1:
		convertTo(dst, unsafe.Slice((*int8)(p), n))
	case 'u'<<4 | 2:
		convertTo(dst, unsafe.Slice((*uint16)(p), n))
	case 'i'<<4 | 2:
		convertTo(dst, unsafe.Slice((*int16)(p), n))
	case 'u'<<4 | 4:
		convertTo(dst, unsafe.Slice((*uint32)(p), n))
	case 'i'<<4 | 4:
		convertTo(dst, unsafe.Slice((*int32)(p), n))
	case 'u'<<4 | 8:
		convertTo(dst, unsafe.Slice((*uint64)(p), n))
	case 'i'<<4 | 8:
		convertTo(dst, unsafe.Slice((*int64)(p), n))
	case 'f'<<4 | 2:
		for i, v := range unsafe.Slice((*uint16)(p), n) {
			dst[i] = float64(halfFloat(v))
		}
	case 'f'<<4 | 4:
		convertTo(dst, unsafe.Slice((*float32)(p), n))
	case 'f'<<4 | 8:
		copy(dst, unsafe.Slice((*float64)(p), n))
	default:
		panic("dataset: unchecked dtype " + h.descr)
	}
}

// number is an element type of an .npy array.
type number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

func convertTo[T number](dst []float64, src []T) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] = float64(v)
	}
}

// fortranScratch is the least scratch budget of readFortran, in bytes (a
// variable so that the tests reach several panels on small arrays).
var fortranScratch = 1 << 20

// readFortran reads column-major (Fortran-order) data of shape n × s1 × …
// × sk into row-major data. The file holds, for each Fortran-ordered index
// r of the trailing axes, the n values of that "column"; a panel of
// consecutive columns is read into scratch and transposed into data in tiles
// of rows, so that both the reads and the writes stay in the cache. The
// scratch holds at most max(1 MiB, 1/16 of the array): when one column is
// larger than that (many rows, few columns), columns are read a block of
// rows at a time. So the peak memory stays about one array.
func (d *npyDecoder) readFortran(r io.Reader, data []float64) error {
	h := d.h
	n := h.shape[0]
	cols := h.nelem / n
	budget := max(fortranScratch, h.nelem*8/16)
	width := max(1, min(cols, budget/(n*h.size)))
	rows := n
	if n*h.size > budget {
		rows = budget / h.size
	}
	scratch := make([]uint64, (width*rows*h.size+7)/8)
	// cidx[k] is the row-major offset within a row of Fortran column r0+k.
	// The trailing axes' multi-index advances with the first one fastest.
	fo := newFortranOrder(h.shape[1:])
	cidx := make([]int, width)
	for r0 := 0; r0 < cols; r0 += width {
		w := min(width, cols-r0)
		for k := range w {
			cidx[k] = fo.next()
		}
		// w == 1 whenever rows < n.
		for i0 := 0; i0 < n; i0 += rows {
			m := min(rows, n-i0)
			raw := uint64Bytes(scratch)[:w*m*h.size]
			if got, err := io.ReadFull(r, raw); err != nil {
				return d.readErr(err, got)
			}
			d.prepare(raw)
			d.transpose(data[i0*cols:], cols, raw, m, cidx[:w])
			d.done += w * m
		}
	}
	return nil
}

// transposeRows is the number of rows below which a panel is transposed
// on one core; above it the rows are split between the cores (each
// worker writes its own rows of data).
const transposeRows = 2048

// transpose writes the panel raw (len(cidx) columns of n prepared values of
// h's dtype) into the rows of data (cols values a row) at offsets cidx.
func (d *npyDecoder) transpose(data []float64, cols int, raw []byte, n int, cidx []int) {
	p := unsafe.Pointer(unsafe.SliceData(raw))
	m := n * len(cidx)
	var f func(lo, hi int)
	switch h := d.h; int(h.kind)<<4 | h.size {
	case 'b'<<4 | 1, 'u'<<4 | 1:
		f = transposer(data, cols, unsafe.Slice((*uint8)(p), m), n, cidx)
	case 'i'<<4 | 1:
		f = transposer(data, cols, unsafe.Slice((*int8)(p), m), n, cidx)
	case 'u'<<4 | 2:
		f = transposer(data, cols, unsafe.Slice((*uint16)(p), m), n, cidx)
	case 'i'<<4 | 2:
		f = transposer(data, cols, unsafe.Slice((*int16)(p), m), n, cidx)
	case 'u'<<4 | 4:
		f = transposer(data, cols, unsafe.Slice((*uint32)(p), m), n, cidx)
	case 'i'<<4 | 4:
		f = transposer(data, cols, unsafe.Slice((*int32)(p), m), n, cidx)
	case 'u'<<4 | 8:
		f = transposer(data, cols, unsafe.Slice((*uint64)(p), m), n, cidx)
	case 'i'<<4 | 8:
		f = transposer(data, cols, unsafe.Slice((*int64)(p), m), n, cidx)
	case 'f'<<4 | 2:
		// Widened to float32 (exactly) in a scratch panel of its own,
		// then transposed as float32.
		if cap(d.half) < m {
			d.half = make([]float32, m)
		}
		w := d.half[:m]
		for i, v := range unsafe.Slice((*uint16)(p), m) {
			w[i] = halfFloat(v)
		}
		f = transposer(data, cols, w, n, cidx)
	case 'f'<<4 | 4:
		f = transposer(data, cols, unsafe.Slice((*float32)(p), m), n, cidx)
	case 'f'<<4 | 8:
		f = transposer(data, cols, unsafe.Slice((*float64)(p), m), n, cidx)
	default:
		panic("dataset: unchecked dtype " + h.descr)
	}
	if m < transposeRows*8 {
		f(0, n)
		return
	}
	parallel.ForRanges(n, transposeRows, f)
}

// transposer returns transposeTo on rows lo..hi−1 of the panel.
func transposer[T number](data []float64, cols int, src []T, n int, cidx []int) func(lo, hi int) {
	return func(lo, hi int) { transposeTo(data, cols, src, n, cidx, lo, hi) }
}

// transposeTo sets data[i·cols+cidx[k]] = src[k·n+i] for the rows i of
// lo..hi−1 and every panel column k. It works on tiles of rows and eight
// columns at a time: eight source streams are read in step and each row
// receives eight values (a whole cache line when, as in 2-D arrays, the
// columns are adjacent), while the tile's destination lines stay cached.
func transposeTo[T number](data []float64, cols int, src []T, n int, cidx []int, lo, hi int) {
	const tile = 256
	for i0 := lo; i0 < hi; i0 += tile {
		i1 := min(i0+tile, hi)
		k := 0
		for ; k+8 <= len(cidx); k += 8 {
			s0 := src[k*n+i0 : k*n+i1]
			m := len(s0)
			s1 := src[(k+1)*n+i0:][:m]
			s2 := src[(k+2)*n+i0:][:m]
			s3 := src[(k+3)*n+i0:][:m]
			s4 := src[(k+4)*n+i0:][:m]
			s5 := src[(k+5)*n+i0:][:m]
			s6 := src[(k+6)*n+i0:][:m]
			s7 := src[(k+7)*n+i0:][:m]
			c := cidx[k : k+8 : k+8]
			off := i0 * cols
			if c[7]-c[0] == 7 && c[1]-c[0] == 1 && c[2]-c[0] == 2 && c[3]-c[0] == 3 && c[4]-c[0] == 4 && c[5]-c[0] == 5 && c[6]-c[0] == 6 {
				off += c[0]
				if s16, ok := any(src).([]int16); ok {
					// The ADBench dtype: eight rows at a time in registers.
					fastmath.TransposeInt16(data[off:], cols, s16[k*n+i0:], n, m)
					continue
				}
				for i := range s0 {
					d := data[off : off+8 : off+8]
					d[0] = float64(s0[i])
					d[1] = float64(s1[i])
					d[2] = float64(s2[i])
					d[3] = float64(s3[i])
					d[4] = float64(s4[i])
					d[5] = float64(s5[i])
					d[6] = float64(s6[i])
					d[7] = float64(s7[i])
					off += cols
				}
				continue
			}
			c0, c1, c2, c3, c4, c5, c6, c7 := c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]
			for i := range s0 {
				d := data[off:]
				d[c0] = float64(s0[i])
				d[c1] = float64(s1[i])
				d[c2] = float64(s2[i])
				d[c3] = float64(s3[i])
				d[c4] = float64(s4[i])
				d[c5] = float64(s5[i])
				d[c6] = float64(s6[i])
				d[c7] = float64(s7[i])
				off += cols
			}
		}
		for ; k < len(cidx); k++ {
			col := src[k*n+i0 : k*n+i1]
			dst := data[i0*cols+cidx[k]:]
			for i, v := range col {
				dst[i*cols] = float64(v)
			}
		}
	}
}

// readGrowing reads the h.nelem·h.size data bytes of a stream whose size
// is not known to be present, into a buffer that grows with the bytes read
// (doubling from 1 MiB, capped at the size the header promises).
func readGrowing(r io.Reader, h *npyHeader) ([]float64, error) {
	need := h.nelem * h.size
	buf := make([]float64, min((need+7)/8, 1<<17))
	got := 0
	for got < need {
		if got == len(buf)*8 {
			nb := make([]float64, min((need+7)/8, 2*len(buf)))
			hugepage.Prefault(nb)
			copy(nb, buf)
			buf = nb
		}
		n, err := io.ReadFull(r, float64Bytes(buf)[got:min(need, len(buf)*8)])
		got += n
		if err != nil {
			d := &npyDecoder{h: h}
			return nil, d.readErr(err, got)
		}
	}
	return buf, nil
}

// finite64 reports whether no float64 (as bits) is a NaN or an infinity,
// that is whether no exponent field is all ones: adding 1 to an all-ones
// exponent carries into the sign bit.
func finite64(u []uint64) bool {
	const exp = 0x7ff << 52
	var a0, a1, a2, a3 uint64
	i := 0
	for ; i+4 <= len(u); i += 4 {
		a0 |= u[i]&exp + 1<<52
		a1 |= u[i+1]&exp + 1<<52
		a2 |= u[i+2]&exp + 1<<52
		a3 |= u[i+3]&exp + 1<<52
	}
	for ; i < len(u); i++ {
		a0 |= u[i]&exp + 1<<52
	}
	return (a0|a1|a2|a3)>>63 == 0
}

// finite32 is finite64 for float32 bits.
func finite32(u []uint32) bool {
	const exp = 0xff << 23
	var a0, a1 uint32
	i := 0
	for ; i+2 <= len(u); i += 2 {
		a0 |= u[i]&exp + 1<<23
		a1 |= u[i+1]&exp + 1<<23
	}
	for ; i < len(u); i++ {
		a0 |= u[i]&exp + 1<<23
	}
	return (a0|a1)>>31 == 0
}

// finite16 is finite64 for float16 bits.
func finite16(u []uint16) bool {
	const exp = 0x1f << 10
	var a uint16
	for _, v := range u {
		a |= v&exp + 1<<10
	}
	return a>>15 == 0
}

// halfFloat returns the IEEE 754 binary16 value with bits h as a float32,
// which holds every binary16 value exactly: the sign, then 5 exponent
// bits (bias 15) and 10 fraction bits; a zero exponent field holds zero
// and the subnormals frac·2⁻²⁴, an all-ones one ±Inf and NaN.
func halfFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch exp {
	case 0:
		v := float32(frac) * 0x1p-24
		if sign != 0 {
			v = -v
		}
		return v
	case 0x1f:
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
}

// float64Bytes is the memory of f as bytes (the read buffer of float64
// data stored in the machine's byte order).
func float64Bytes(f []float64) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(f))), 8*len(f))
}

// uint64Bytes is the memory of u as bytes: scratch space aligned for any
// element type.
func uint64Bytes(u []uint64) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(u))), 8*len(u))
}

// shapeText writes a shape for a message: "2000000 × 100".
func shapeText(shape []int) string {
	parts := make([]string, len(shape))
	for i, k := range shape {
		parts[i] = strconv.Itoa(k)
	}
	return strings.Join(parts, " × ")
}

func readNPYAt(ra io.ReaderAt, size int64, path string, opt Options) (*Dataset, error) {
	a, err := readNPY(io.NewSectionReader(ra, 0, size), size, size, opt)
	if err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	return fromArrays(path, a, nil, nil, opt)
}

// npzArchive is an .npz opened: its members by name without ".npy".
type npzArchive struct {
	path    string
	size    int64
	zr      *zip.Reader
	members map[string]*zip.File
	keys    []string
}

// openArchive reads the directory of the .npz of size bytes at ra.
func openArchive(ra io.ReaderAt, size int64, path string) (*npzArchive, error) {
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		return nil, &Error{Path: path, Err: fmt.Errorf("not an .npz (zip) archive: %v", err)}
	}
	// klauspost/compress's inflater instead of compress/flate's: the same
	// format and errors, about twice the speed (np.savez_compressed's
	// 6,400 × 960 float64 member, 47 MB: 495–598 → 267–293 ms).
	zr.RegisterDecompressor(zip.Deflate, func(r io.Reader) io.ReadCloser { return kflate.NewReader(r) })
	a := &npzArchive{path: path, size: size, zr: zr, members: map[string]*zip.File{}}
	for _, f := range zr.File {
		k := strings.TrimSuffix(f.Name, ".npy")
		a.members[k] = f
		a.keys = append(a.keys, k)
	}
	return a, nil
}

// limits returns what the archive allows of member f: avail, the bytes
// it can hold, and trust, the bytes a header may promise and have its
// array allocated at once (see readNPY).
func (a *npzArchive) limits(f *zip.File) (avail, trust int64) {
	// A deflate stream expands at most about 1032:1; a header that asks
	// for more than the member could hold is refused before reading.
	// The sizes in the zip directory are claims: neither a stored nor a
	// compressed member can hold more bytes than the archive itself.
	avail = int64(f.UncompressedSize64)
	if f.UncompressedSize64 > math.MaxInt64/2 {
		avail = math.MaxInt64 / 2
	}
	c := min(a.size, int64(min(f.CompressedSize64, math.MaxInt64/2)))
	if f.Method == zip.Store {
		avail = min(avail, c)
		return avail, avail
	}
	if c < math.MaxInt64/2048 {
		avail = min(avail, 1032*c+1024)
	}
	// Preallocate from the header only up to a compression ratio real
	// arrays reach; beyond it the data must show up first.
	return avail, max(npzTrust, 16*c)
}

// open opens member key (f) for reading, with the messages of an
// unsupported compression method and of other errors.
func (a *npzArchive) open(key string, f *zip.File) (io.ReadCloser, error) {
	rc, err := f.Open()
	if errors.Is(err, zip.ErrAlgorithm) {
		// It said only "zip: unsupported compression algorithm".
		return nil, &Error{Path: a.path, Err: fmt.Errorf("array %s: compressed with %s, which is not read: numpy.savez and numpy.savez_compressed write stored or deflated members; save the arrays with one of them", key, zipMethod(f.Method))}
	}
	if err != nil {
		return nil, &Error{Path: a.path, Err: fmt.Errorf("array %s: %w", key, err)}
	}
	return rc, nil
}

// noX is the error of an archive without X.
func (a *npzArchive) noX() error {
	hint := ""
	switch {
	case slices.Contains(a.keys, "arr_0"):
		hint = "; numpy.savez names the arrays given without a keyword arr_0, arr_1, ...: save them as numpy.savez(file, X=X, y=y)"
	case slices.Contains(a.keys, "x"):
		hint = "; array names are case-sensitive: save the data as X (numpy.savez(file, X=x, y=y))"
	}
	return &Error{Path: a.path, Err: fmt.Errorf("no array X in the archive (it holds: %s)%s", memberList(a.keys), hint)}
}

// labelName returns the name of the label array: y, or the one
// Options.Label names.
func (a *npzArchive) labelName(opt Options) (string, error) {
	if opt.Label == "" {
		return "y", nil
	}
	if opt.Label == "X" || opt.Label == "split" {
		return "", &Error{Path: a.path, Err: fmt.Errorf("array %s cannot hold the labels: the label option names the array of anomaly labels (1 = anomaly, 0 = normal, -1 = unlabeled), such as y", opt.Label)}
	}
	return opt.Label, nil
}

// noLabel is the error of an archive without the label array Options.Label
// names.
func (a *npzArchive) noLabel(opt Options) error {
	return &Error{Path: a.path, Err: fmt.Errorf("no label array %q in the archive (it holds: %s)", opt.Label, memberList(a.keys))}
}

func readNPZAt(ra io.ReaderAt, size int64, path string, opt Options) (*Dataset, error) {
	a, err := openArchive(ra, size, path)
	if err != nil {
		return nil, err
	}
	get := func(key string) (*npyArray, error) {
		f := a.members[key]
		if f == nil {
			return nil, nil
		}
		avail, trust := a.limits(f)
		rc, err := a.open(key, f)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		o := opt
		if key != "X" {
			o.Buffer = nil // the caller's buffer is for X
		}
		arr, err := readNPY(rc, avail, trust, o)
		if err != nil {
			return nil, &Error{Path: path, Err: fmt.Errorf("array %s: %w", key, err)}
		}
		return arr, nil
	}
	x, err := get("X")
	if err != nil {
		return nil, err
	}
	if x == nil {
		return nil, a.noX()
	}
	// y is the labels or the class index (fromArrays decides); an array
	// named by Options.Label is anomaly labels whatever X's shape.
	yname, err := a.labelName(opt)
	if err != nil {
		return nil, err
	}
	y, err := get(yname)
	if err != nil {
		return nil, err
	}
	if y == nil && opt.Label != "" {
		return nil, a.noLabel(opt)
	}
	split, err := get("split")
	if err != nil {
		return nil, err
	}
	return fromArrays(path, x, &npyLabels{y, yname, opt.Label != ""}, split, opt)
}

// npyLabels is the label array of an .npz: its name, and whether the user
// named it, which makes it anomaly labels whatever X's shape.
type npyLabels struct {
	a     *npyArray
	name  string
	named bool
}

// npzTrust is the number of data bytes a deflated .npz member may promise
// (beyond 16 times its compressed size) and still be allocated at once. A
// variable so that the tests can take the other path on small data.
var npzTrust int64 = 64 << 20

// fromArrays builds a Dataset from X and the optional y and split arrays.
func fromArrays(path string, x *npyArray, y *npyLabels, split *npyArray, opt Options) (*Dataset, error) {
	n, d, shape, err := arrayDims(path, x.shape)
	if err != nil {
		return nil, err
	}
	if !x.finite {
		if err := nonFinite(path, x.data, d, 0); err != nil {
			return nil, err
		}
	}
	if opt.Shape != nil {
		if shape, err = applyShape(path, opt.Shape, d); err != nil {
			return nil, err
		}
	}
	ds := &Dataset{X: mat.NewDense(n, d, x.data), Shape: shape, Source: path}
	if y != nil && y.a != nil {
		v, err := intVector(path, y.name, y.a, n)
		if err != nil {
			return nil, err
		}
		binary := len(x.shape) <= 2 || y.named
		for i, c := range v {
			if c < -1 || c > 1 {
				if y.named {
					return nil, &Error{Path: path, Row: i + 1, Err: fmt.Errorf("label array %s holds %d: anomaly labels are 1 (anomaly), 0 (normal) and -1 (unlabeled); a class index is read as y, without naming it", y.name, c)}
				}
				binary = false
				break
			}
		}
		if binary {
			ds.Y = v
			if note := signLabels(v); note != "" {
				ds.Notes = append(ds.Notes, note)
			}
		} else {
			ds.Class = v
		}
	}
	if split != nil {
		v, err := intVector(path, "split", split, n)
		if err != nil {
			return nil, err
		}
		ds.Split = v
	}
	return ds, nil
}

// arrayDims returns the rows and columns of an array X of shape xshape
// and the sample shape of its rows (nil but for an N-d array), or the
// error of an array that holds no rows.
func arrayDims(path string, xshape []int) (n, d int, shape []int, err error) {
	switch len(xshape) {
	case 0:
		return 0, 0, nil, &Error{Path: path, Err: errors.New("X is a scalar, need an n × d array")}
	case 1:
		n, d = xshape[0], 1
	default:
		n = xshape[0]
		d = 1
		for _, s := range xshape[1:] {
			d *= s
		}
		if len(xshape) > 2 {
			shape = append([]int(nil), xshape[1:]...)
		}
	}
	if n == 0 || d == 0 {
		return 0, 0, nil, &Error{Path: path, Err: fmt.Errorf("empty data: X has shape %v", xshape)}
	}
	return n, d, shape, nil
}

// nonFinite is the error of the first NaN or infinite value of data, rows
// of d values from row0 on; nil when there is none.
func nonFinite(path string, data []float64, d, row0 int) error {
	for k, v := range data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &Error{Path: path, Row: row0 + k/d + 1, Col: k%d + 1, Err: fmt.Errorf("X holds %v; NaN and infinite values are not allowed", v)}
		}
	}
	return nil
}

// intVector checks that a is a vector of n integers (shape (n,) or (n, 1)).
func intVector(path, name string, a *npyArray, n int) ([]int, error) {
	ok := (len(a.shape) == 1 && a.shape[0] == n) || (len(a.shape) == 2 && a.shape[0] == n && a.shape[1] == 1)
	if !ok {
		return nil, &Error{Path: path, Err: fmt.Errorf("%s has shape %v, want (%d,) to match X", name, a.shape, n)}
	}
	v := make([]int, n)
	for i, f := range a.data {
		if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return nil, &Error{Path: path, Row: i + 1, Err: fmt.Errorf("%s holds %v, want an integer", name, f)}
		}
		v[i] = int(f)
	}
	return v, nil
}

// zipMethod names a zip compression method for a message.
func zipMethod(m uint16) string {
	switch m {
	case 12:
		return "bzip2"
	case 14:
		return "LZMA"
	case 93:
		return "zstd"
	case 95:
		return "xz"
	}
	return fmt.Sprintf("zip compression method %d", m)
}

// memberList lists an archive's member names for a message, a name that is
// not printable text quoted (a line break in a name broke the one-line
// message).
func memberList(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = k
		if !utf8.ValidString(k) || strings.IndexFunc(k, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
			q[i] = strconv.Quote(k)
		}
	}
	return strings.Join(q, ", ")
}
