package dataset

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// npyArray is a decoded .npy array: its values converted to float64 in
// C (row-major) order, and its shape.
type npyArray struct {
	shape []int
	data  []float64
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
			ok = size == 4 || size == 8
		default:
			ok = false
		}
	}
	if !ok {
		return fmt.Errorf("unsupported dtype %q (need bool, int8-64, uint8-64, float32 or float64)", h.descr)
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
		if j == p.i || j-p.i > 12 {
			return nil, errors.New("expected a dimension (a non-negative integer)")
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
// allocation. The data are read in chunks, so memory grows only with the
// bytes actually present.
func readNPY(r io.Reader, avail int64) (*npyArray, error) {
	h, used, err := readNPYHeader(r)
	if err != nil {
		return nil, err
	}
	need := int64(h.nelem) * int64(h.size)
	if avail >= 0 && need > avail-used {
		return nil, fmt.Errorf("truncated: the header promises %v %s values (%d bytes) but only %d bytes follow", h.shape, h.descr, need, max(avail-used, 0))
	}
	data, err := decodeNPY(r, h)
	if err != nil {
		return nil, err
	}
	if h.fortran && len(h.shape) > 1 {
		data = fortranToC(data, h.shape)
	}
	return &npyArray{shape: h.shape, data: data}, nil
}

// decodeNPY converts h.nelem values of h's dtype from r to float64.
func decodeNPY(r io.Reader, h *npyHeader) ([]float64, error) {
	const chunk = 1 << 15
	data := make([]float64, 0, min(h.nelem, chunk))
	per := chunk / h.size
	buf := make([]byte, per*h.size)
	for len(data) < h.nelem {
		k := min(per, h.nelem-len(data))
		b := buf[:k*h.size]
		if _, err := io.ReadFull(r, b); err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return nil, fmt.Errorf("truncated: the header promises %d values of %s, the data ends before value %d", h.nelem, h.descr, len(data)+1)
			}
			return nil, fmt.Errorf("cannot read data: %v", err)
		}
		for e := 0; e < k; e++ {
			c := b[e*h.size : (e+1)*h.size]
			var v float64
			switch h.kind {
			case 'b':
				if c[0] != 0 {
					v = 1
				}
			case 'u':
				switch h.size {
				case 1:
					v = float64(c[0])
				case 2:
					v = float64(h.order.Uint16(c))
				case 4:
					v = float64(h.order.Uint32(c))
				case 8:
					v = float64(h.order.Uint64(c))
				}
			case 'i':
				switch h.size {
				case 1:
					v = float64(int8(c[0]))
				case 2:
					v = float64(int16(h.order.Uint16(c)))
				case 4:
					v = float64(int32(h.order.Uint32(c)))
				case 8:
					v = float64(int64(h.order.Uint64(c)))
				}
			case 'f':
				if h.size == 4 {
					v = float64(math.Float32frombits(h.order.Uint32(c)))
				} else {
					v = math.Float64frombits(h.order.Uint64(c))
				}
			}
			data = append(data, v)
		}
	}
	return data, nil
}

// fortranToC reorders the column-major values of an array of the given shape
// into row-major order.
func fortranToC(src []float64, shape []int) []float64 {
	dst := make([]float64, len(src))
	if len(shape) == 2 {
		n, d := shape[0], shape[1]
		for j := 0; j < d; j++ {
			col := src[j*n : (j+1)*n]
			for i, v := range col {
				dst[i*d+j] = v
			}
		}
		return dst
	}
	// Fortran strides: stride[k] = shape[0]·…·shape[k−1].
	k := len(shape)
	stride := make([]int, k)
	s := 1
	for a := 0; a < k; a++ {
		stride[a] = s
		s *= shape[a]
	}
	idx := make([]int, k)
	off := 0
	for c := range dst {
		dst[c] = src[off]
		// Advance the C-order multi-index (last axis fastest).
		for a := k - 1; a >= 0; a-- {
			idx[a]++
			off += stride[a]
			if idx[a] < shape[a] {
				break
			}
			off -= stride[a] * shape[a]
			idx[a] = 0
		}
	}
	return dst
}

func readNPYAt(ra io.ReaderAt, size int64, path string, opt Options) (*Dataset, error) {
	a, err := readNPY(io.NewSectionReader(ra, 0, size), size)
	if err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	return fromArrays(path, a, nil, nil, opt)
}

func readNPZAt(ra io.ReaderAt, size int64, path string, opt Options) (*Dataset, error) {
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		return nil, &Error{Path: path, Err: fmt.Errorf("not an .npz (zip) archive: %v", err)}
	}
	members := map[string]*zip.File{}
	var keys []string
	for _, f := range zr.File {
		k := strings.TrimSuffix(f.Name, ".npy")
		members[k] = f
		keys = append(keys, k)
	}
	get := func(key string) (*npyArray, error) {
		f := members[key]
		if f == nil {
			return nil, nil
		}
		// A deflate stream expands at most about 1032:1; a header that asks
		// for more than the member could hold is refused before reading.
		avail := int64(f.UncompressedSize64)
		if f.UncompressedSize64 > math.MaxInt64/2 {
			avail = math.MaxInt64 / 2
		}
		if f.Method == zip.Store {
			avail = min(avail, int64(f.CompressedSize64))
		} else if c := int64(f.CompressedSize64); c < math.MaxInt64/2048 {
			avail = min(avail, 1032*c+1024)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, &Error{Path: path, Err: fmt.Errorf("array %s: %v", key, err)}
		}
		defer rc.Close()
		a, err := readNPY(rc, avail)
		if err != nil {
			return nil, &Error{Path: path, Err: fmt.Errorf("array %s: %v", key, err)}
		}
		return a, nil
	}
	x, err := get("X")
	if err != nil {
		return nil, err
	}
	if x == nil {
		return nil, &Error{Path: path, Err: fmt.Errorf("no array X in the archive (it holds: %s)", strings.Join(keys, ", "))}
	}
	y, err := get("y")
	if err != nil {
		return nil, err
	}
	split, err := get("split")
	if err != nil {
		return nil, err
	}
	return fromArrays(path, x, y, split, opt)
}

// fromArrays builds a Dataset from X and the optional y and split arrays.
func fromArrays(path string, x, y, split *npyArray, opt Options) (*Dataset, error) {
	var n, d int
	var shape []int
	switch len(x.shape) {
	case 0:
		return nil, &Error{Path: path, Err: errors.New("X is a scalar, need an n × d array")}
	case 1:
		n, d = x.shape[0], 1
	default:
		n = x.shape[0]
		d = 1
		for _, s := range x.shape[1:] {
			d *= s
		}
		if len(x.shape) > 2 {
			shape = append([]int(nil), x.shape[1:]...)
		}
	}
	if n == 0 || d == 0 {
		return nil, &Error{Path: path, Err: fmt.Errorf("empty data: X has shape %v", x.shape)}
	}
	for k, v := range x.data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, &Error{Path: path, Row: k/d + 1, Col: k%d + 1, Err: fmt.Errorf("X holds %v; NaN and infinite values are not allowed", v)}
		}
	}
	if opt.Shape != nil {
		var err error
		if shape, err = applyShape(path, opt.Shape, d); err != nil {
			return nil, err
		}
	}
	ds := &Dataset{X: mat.NewDense(n, d, x.data), Shape: shape, Source: path}
	if y != nil {
		v, err := intVector(path, "y", y, n)
		if err != nil {
			return nil, err
		}
		binary := len(x.shape) <= 2
		for _, c := range v {
			if c < -1 || c > 1 {
				binary = false
				break
			}
		}
		if binary {
			ds.Y = v
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
