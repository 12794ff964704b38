package dataset

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kernelad/anomaly/internal/testmat"
	"gonum.org/v1/gonum/mat"
)

// refNPY decodes an .npy stream value by value, the way the package did
// before the bulk decoder (kept here as the reference): header, then each
// element through encoding/binary's ByteOrder into a growing slice, then
// Fortran data reordered by an odometer over the multi-index.
func refNPY(r io.Reader) (*npyArray, error) {
	h, _, err := readNPYHeader(r)
	if err != nil {
		return nil, err
	}
	data := make([]float64, 0, h.nelem)
	c := make([]byte, h.size)
	for len(data) < h.nelem {
		if _, err := io.ReadFull(r, c); err != nil {
			return nil, fmt.Errorf("truncated before value %d", len(data)+1)
		}
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
			switch h.size {
			case 2:
				v = refHalf(h.order.Uint16(c))
			case 4:
				v = float64(math.Float32frombits(h.order.Uint32(c)))
			default:
				v = math.Float64frombits(h.order.Uint64(c))
			}
		}
		data = append(data, v)
	}
	if h.fortran && len(h.shape) > 1 {
		k := len(h.shape)
		stride := make([]int, k)
		s := 1
		for a := 0; a < k; a++ {
			stride[a] = s
			s *= h.shape[a]
		}
		dst := make([]float64, len(data))
		idx := make([]int, k)
		off := 0
		for c := range dst {
			dst[c] = data[off]
			for a := k - 1; a >= 0; a-- {
				idx[a]++
				off += stride[a]
				if idx[a] < h.shape[a] {
					break
				}
				off -= stride[a] * h.shape[a]
				idx[a] = 0
			}
		}
		data = dst
	}
	finite := true
	for _, v := range data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			finite = false
		}
	}
	return &npyArray{shape: h.shape, data: data, finite: finite}, nil
}

// refHalf decodes IEEE 754 binary16 bits by the standard's formula:
// (−1)^s · 2^(e−15) · (1 + f/2¹⁰) for a biased exponent e of 1 to 30,
// (−1)^s · f · 2⁻²⁴ for e = 0, ±Inf or NaN for e = 31 (a NaN's payload
// taken as float32 would: it is refused as NaN whatever it holds).
func refHalf(u uint16) float64 {
	s, e, f := u>>15, int(u>>10&0x1f), float64(u&0x3ff)
	var v float64
	switch e {
	case 0:
		v = math.Ldexp(f, -24)
	case 31:
		if f != 0 {
			return float64(math.Float32frombits(uint32(u>>15)<<31 | 0xff<<23 | uint32(u&0x3ff)<<13))
		}
		v = math.Inf(1)
	default:
		v = math.Ldexp(1+f/1024, e-15)
	}
	if s == 1 {
		v = -v
	}
	return v
}

// TestHalfFloat checks float16 decoding on values the binary16 format
// defines exactly: ±1, −2, the largest finite 65504, the smallest normal
// 2⁻¹⁴ and subnormal 2⁻²⁴, −0, the value nearest 1/3 and ±Inf.
func TestHalfFloat(t *testing.T) {
	for _, tc := range []struct {
		bits uint16
		want float64
	}{
		{0x3c00, 1}, {0xbc00, -1}, {0xc000, -2}, {0x7bff, 65504}, {0x0400, 0x1p-14},
		{0x0001, 0x1p-24}, {0x03ff, 1023 * 0x1p-24}, {0x8000, math.Copysign(0, -1)},
		{0x3555, 0x1.554p-2}, {0x7c00, math.Inf(1)}, {0xfc00, math.Inf(-1)},
	} {
		if got := float64(halfFloat(tc.bits)); math.Float64bits(got) != math.Float64bits(tc.want) {
			t.Errorf("halfFloat(%#04x) = %v, want %v", tc.bits, got, tc.want)
		}
	}
	if v := halfFloat(0x7e00); !math.IsNaN(float64(v)) {
		t.Errorf("halfFloat(0x7e00) = %v, want NaN", v)
	}
}

var allDtypes = []string{
	"|b1", "|i1", "|u1", "<i2", ">i2", "<u2", ">u2", "<i4", ">i4", "<u4", ">u4",
	"<i8", ">i8", "<u8", ">u8", "<f2", ">f2", "<f4", ">f4", "<f8", ">f8", "=f8", "|u2",
}

func dtypeSize(descr string) int { n, _ := strconv.Atoi(descr[2:]); return n }

func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// TestNPYDecodeMatchesReference decodes random bytes (every bit pattern:
// NaN, infinities, extreme integers) in every dtype, both byte orders, C
// and Fortran order and shapes that take one or several Fortran panels,
// directly and through the growing-buffer path, and compares the values
// bit for bit (and the finite flag) with the value-by-value reference.
func TestNPYDecodeMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	// With a 64 KiB scratch budget, {300, 40} and {300, 7, 9, 5} take
	// several Fortran panels (of 27 float64 columns: eight-column groups and
	// a remainder) and a float64 column of {20000, 2} is larger than the
	// budget, so it is read a block of rows at a time. The panels of
	// {5000, 9} in the 1-, 2- and 4-byte dtypes hold 16,384 values or more,
	// so their rows are transposed by two workers (transposeRows).
	defer func(old int) { fortranScratch = old }(fortranScratch)
	fortranScratch = 64 << 10
	shapes := [][]int{{7}, {5, 3}, {1, 1}, {3, 1, 2}, {9, 8, 3, 2}, {300, 40}, {300, 7, 9, 5}, {20000, 2}, {5000, 9}}
	for _, dt := range allDtypes {
		size := dtypeSize(dt)
		for _, shape := range shapes {
			n := 1
			for _, s := range shape {
				n *= s
			}
			raw := make([]byte, n*size)
			for i := range raw {
				raw[i] = byte(rng.Uint32())
			}
			for _, fortran := range []bool{false, true} {
				file := testmat.NPY(dt, fortran, shape, raw)
				want, err := refNPY(bytes.NewReader(file))
				if err != nil {
					t.Fatal(err)
				}
				for _, trust := range []int64{int64(len(file)), 0} {
					name := fmt.Sprintf("%s %v fortran=%v trust=%d", dt, shape, fortran, trust)
					got, err := readNPY(bytes.NewReader(file), int64(len(file)), trust, Options{})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if !sameBits(got.data, want.data) || got.finite != want.finite {
						t.Fatalf("%s: values or finite flag (%v, want %v) differ from the reference", name, got.finite, want.finite)
					}
				}
			}
		}
	}
}

// TestNPYTruncatedValue checks the value the truncation message names on
// every read path when the stream is shorter than its header (possible in
// a zip member whose directory sizes lie; a file's size is checked first).
func TestNPYTruncatedValue(t *testing.T) {
	defer func(old int) { fortranScratch = old }(fortranScratch)
	fortranScratch = 64 << 10
	for _, tc := range []struct {
		descr   string
		fortran bool
		shape   []int
	}{
		{"<f8", false, []int{50000, 3}},
		{">f8", false, []int{4, 3}},
		{"<i2", false, []int{50000, 3}},
		{"<f4", true, []int{40000, 30}},
		{"|u1", true, []int{6, 5, 2}},
		{"<f8", true, []int{20000, 2}},
	} {
		n := 1
		for _, s := range tc.shape {
			n *= s
		}
		size := dtypeSize(tc.descr)
		file := testmat.NPY(tc.descr, tc.fortran, tc.shape, make([]byte, n*size))
		hdr := len(file) - n*size
		for _, keep := range []int{0, size - 1, 5*size + 1, 8193 * size, (n - 1) * size} {
			if keep > (n-1)*size {
				continue
			}
			for _, trust := range []int64{-1, 0} {
				_, err := readNPY(bytes.NewReader(file[:hdr+keep]), -1, trust, Options{})
				want := fmt.Sprintf("the data ends before value %d", keep/size+1)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s %v fortran=%v, %d data bytes, trust %d: error %v, want %q", tc.descr, tc.shape, tc.fortran, keep, trust, err, want)
				}
			}
		}
	}
}

// npzWith zips members with the given method (zip.Store or zip.Deflate).
func npzWith(method uint16, members ...[2][]byte) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, m := range members {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: string(m[0]), Method: method})
		if err != nil {
			panic(err)
		}
		w.Write(m[1])
	}
	zw.Close()
	return b.Bytes()
}

func member(name string, file []byte) [2][]byte { return [2][]byte{[]byte(name), file} }

// TestNPZPaths reads the same arrays from stored and deflated archives,
// including a deflated member that promises more than npzTrust allows so
// that it is read through the growing buffer, and compares with the
// reference decoder.
func TestNPZPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, d = 300, 40
	xs := make([]byte, n*d*8)
	xb := make([]byte, n*d*8) // the same values big-endian
	for i := 0; i < n*d; i++ {
		v := math.Float64bits(rng.NormFloat64())
		binary.LittleEndian.PutUint64(xs[8*i:], v)
		binary.BigEndian.PutUint64(xb[8*i:], v)
	}
	zeros := make([]byte, n*d*2) // compresses far beyond 16:1
	ys := make([]byte, n*8)
	for i := range n {
		binary.LittleEndian.PutUint64(ys[8*i:], uint64(i%2))
	}
	old := npzTrust
	defer func() { npzTrust = old }()
	for _, x := range []struct {
		name string
		file []byte
	}{
		{"C f8", testmat.NPY("<f8", false, []int{n, d}, xs)},
		{"Fortran f8", testmat.NPY("<f8", true, []int{n, d}, xs)},
		{"zeros i2", testmat.NPY("<i2", true, []int{n, d}, zeros)},
		{"tensor f8", testmat.NPY(">f8", false, []int{n, 5, 8}, xb)},
	} {
		want, err := refNPY(bytes.NewReader(x.file))
		if err != nil {
			t.Fatal(err)
		}
		y := testmat.NPY("<i8", false, []int{n}, ys)
		for _, method := range []uint16{zip.Store, zip.Deflate} {
			for _, trust := range []int64{old, 0} {
				npzTrust = trust
				arch := npzWith(method, member("X.npy", x.file), member("y.npy", y))
				ds, err := Read(bytes.NewReader(arch), int64(len(arch)), "a.npz", Options{})
				if err != nil {
					t.Fatalf("%s method %d trust %d: %v", x.name, method, trust, err)
				}
				raw := ds.X.(*mat.Dense).RawMatrix().Data
				lab := ds.Y
				if lab == nil {
					lab = ds.Class
				}
				if !sameBits(raw, want.data) || len(lab) != n || lab[1] != 1 {
					t.Errorf("%s method %d trust %d: data or labels differ", x.name, method, trust)
				}
			}
		}
	}
}

// TestNPZChecksum flips one data byte of a member: the CRC-32 in the
// archive no longer matches, and that is an error rather than a silently
// different array.
func TestNPZChecksum(t *testing.T) {
	x := testmat.NPY("<f8", false, []int{4, 2}, make([]byte, 64))
	for _, method := range []uint16{zip.Store, zip.Deflate} {
		arch := npzWith(method, member("X.npy", x))
		if method == zip.Store {
			k := bytes.Index(arch, x) + len(x) - 3
			arch[k] ^= 0x10
		} else {
			// Rebuild with different content but keep the first CRC.
			good := npzWith(method, member("X.npy", x))
			x2 := append([]byte(nil), x...)
			x2[len(x2)-3] = 0x10
			arch = npzWith(method, member("X.npy", x2))
			zr, _ := zip.NewReader(bytes.NewReader(good), int64(len(good)))
			crc := zr.File[0].CRC32
			zr2, _ := zip.NewReader(bytes.NewReader(arch), int64(len(arch)))
			bad := zr2.File[0].CRC32
			var cb, bb [4]byte
			binary.LittleEndian.PutUint32(cb[:], crc)
			binary.LittleEndian.PutUint32(bb[:], bad)
			arch = bytes.ReplaceAll(arch, bb[:], cb[:])
		}
		_, err := Read(bytes.NewReader(arch), int64(len(arch)), "c.npz", Options{})
		var de *Error
		if !errors.As(err, &de) || !strings.Contains(err.Error(), "array X: cannot read data: zip: checksum error") {
			t.Errorf("method %d: error %v, want a checksum error", method, err)
		}
	}
}

// TestNPYTrailingData appends values after the array the header declares
// (a header whose row count is too small): an .npy file, an .npy stream and
// both kinds of .npz member refuse it on every read path, rather than
// silently reading the declared part as NumPy does.
func TestNPYTrailingData(t *testing.T) {
	old := npzTrust
	defer func() { npzTrust = old }()
	for _, tc := range []struct {
		descr   string
		fortran bool
	}{{"<f8", false}, {">f8", false}, {"<i2", true}, {"<f4", false}} {
		size := dtypeSize(tc.descr)
		// 4 × 3 declared, 5 × 3 present.
		file := testmat.NPY(tc.descr, tc.fortran, []int{4, 3}, make([]byte, 12*size))
		file = append(file, make([]byte, 3*size)...)
		want := "more data follow the 4 × 3 " + tc.descr + " values"
		check := func(name string, err error) {
			t.Helper()
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s %s: error %v, want one containing %q", tc.descr, name, err, want)
			}
		}
		_, err := Read(bytes.NewReader(file), int64(len(file)), "t.npy", Options{})
		check("file", err)
		_, err = readNPYStream(bytes.NewReader(file), -1, "t.npy", Options{})
		check("stream", err)
		for _, method := range []uint16{zip.Store, zip.Deflate} {
			for _, trust := range []int64{old, 0} {
				npzTrust = trust
				arch := npzWith(method, member("X.npy", file))
				_, err := Read(bytes.NewReader(arch), int64(len(arch)), "t.npz", Options{})
				check(fmt.Sprintf("npz method %d trust %d", method, trust), err)
			}
		}
	}
}

// TestNPYNonFiniteFortran puts NaNs in a Fortran-order array: the error
// names the first one in row-major order (row, then column), as a user
// reading X[i, j] sees it, not the first one in the file.
func TestNPYNonFiniteFortran(t *testing.T) {
	const n, d = 4, 3
	vals := make([]float64, n*d) // column-major
	vals[2*n+1] = math.Inf(1)    // X[1, 2]
	vals[0*n+3] = math.NaN()     // X[3, 0], earlier in the file
	file := npyBytes("<f8", true, []int{n, d}, vals)
	_, err := Read(bytes.NewReader(file), int64(len(file)), "f.npy", Options{})
	var de *Error
	if !errors.As(err, &de) || de.Row != 2 || de.Col != 3 || !strings.Contains(err.Error(), "X holds +Inf") {
		t.Errorf("error %v, want row 2 column 3 +Inf", err)
	}
}

// TestBuffer reads .npy and .npz files into Options.Buffer: the same
// values as a fresh read, in the buffer's memory when it has the capacity
// (X only, not an .npz's y), in new memory when it has not.
func TestBuffer(t *testing.T) {
	vals := []float64{1, -2, 3.5, 4, 5, 6}
	files := map[string][]byte{
		"c.npy": npyBytes("<f8", false, []int{3, 2}, vals),
		"f.npy": npyBytes("<i2", true, []int{3, 2}, []float64{1, -2, 3, 4, 5, 6}),
		"x.npz": npzBytes(map[string][]byte{"X.npy": npyBytes("<f8", true, []int{2, 3}, vals), "y.npy": npyBytes("<i8", false, []int{2}, []float64{0, 1})}, "X.npy", "y.npy"),
	}
	for name, b := range files {
		want, err := Read(bytes.NewReader(b), int64(len(b)), name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []int{6, 100, 5} {
			buf := make([]float64, c)
			for i := range buf {
				buf[i] = math.NaN() // every value must be written over
			}
			got, err := Read(bytes.NewReader(b), int64(len(b)), name, Options{Buffer: buf})
			if err != nil {
				t.Fatal(err)
			}
			raw := got.X.(*mat.Dense).RawMatrix().Data
			if !mat.Equal(got.X, want.X) || !slices.Equal(got.Y, want.Y) {
				t.Errorf("%s, buffer of %d: values differ from a fresh read", name, c)
			}
			if shared := &raw[0] == &buf[0]; shared != (c >= 6) {
				t.Errorf("%s, buffer of %d: X in the buffer: %v", name, c, shared)
			}
		}
	}
}

// The y of an N-d .npz is a class index (the tensor files' y is); named by
// Options.Label it is anomaly labels whatever X's shape, and then a value
// outside {−1, 0, 1} is an error naming the row. A named array that is
// not there, or X named as labels, is an error.
func TestNPZNamedLabels(t *testing.T) {
	x := make([]float64, 4*2*3)
	for i := range x {
		x[i] = float64(i)
	}
	file := func(y []float64) []byte {
		return npzBytes(map[string][]byte{
			"X.npy": npyBytes("<f8", false, []int{4, 2, 3}, x),
			"y.npy": npyBytes("<i8", false, []int{4}, y),
		}, "X.npy", "y.npy")
	}
	read := func(b []byte, label string) (*Dataset, error) {
		return Read(bytes.NewReader(b), int64(len(b)), "t.npz", Options{Label: label})
	}
	b := file([]float64{0, 1, 0, 0})
	ds, err := read(b, "")
	if err != nil || ds.Y != nil || !slices.Equal(ds.Class, []int{0, 1, 0, 0}) {
		t.Fatalf("unnamed: Y %v Class %v err %v; want y as a class index", ds.Y, ds.Class, err)
	}
	ds, err = read(b, "y")
	if err != nil || ds.Class != nil || !slices.Equal(ds.Y, []int{0, 1, 0, 0}) || !slices.Equal(ds.Shape, []int{2, 3}) {
		t.Fatalf("--label y: Y %v Class %v Shape %v err %v; want y as anomaly labels", ds.Y, ds.Class, ds.Shape, err)
	}
	for _, c := range []struct {
		b     []byte
		label string
		want  string
		row   int
	}{
		{file([]float64{0, 1, 2, 0}), "y", "label array y holds 2", 3},
		{b, "labels", `no label array "labels" in the archive (it holds: X, y)`, 0},
		{b, "X", "array X cannot hold the labels", 0},
	} {
		_, err := read(c.b, c.label)
		var de *Error
		if !errors.As(err, &de) || !strings.Contains(err.Error(), c.want) || de.Row != c.row {
			t.Errorf("label %q: %v; want %q at row %d", c.label, err, c.want, c.row)
		}
	}
}

// An .npy stream whose array the budget admits is read into one buffer
// allocated from its header: grown as the bytes came, it held the old and
// the new buffer together (a 96 MB stream peaked at 208 MB under a 110 MB
// budget).
func TestNPYStreamWithinBudgetOneBuffer(t *testing.T) {
	const n, d = 125_000, 8 // 8 MB of float64
	file := npyBytes("<f8", false, []int{n, d}, make([]float64, n*d))
	alloc := func(opt Options) uint64 {
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		if _, err := ReadStream(bytes.NewReader(file), ".npy", "standard input", opt); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&b)
		return b.TotalAlloc - a.TotalAlloc
	}
	if got := alloc(Options{MaxBytes: 10 << 20}); got > 9<<20 {
		t.Errorf("within a 10 MB budget the stream allocated %d bytes, want about the 8 MB array once", got)
	}
}

// nopWriteCloser is a zip compressor that stores its input.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// TestNPZUnsupportedMethod: a member compressed with bzip2 (Python's
// zipfile.ZIP_BZIP2; NumPy never writes it) is refused by name; it said
// only "zip: unsupported compression algorithm".
func TestNPZUnsupportedMethod(t *testing.T) {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	zw.RegisterCompressor(12, func(w io.Writer) (io.WriteCloser, error) { return nopWriteCloser{w}, nil })
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "X.npy", Method: 12})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(testmat.NPY("<f8", false, []int{4, 2}, make([]byte, 64)))
	zw.Close()
	_, err = Read(bytes.NewReader(b.Bytes()), int64(b.Len()), "b.npz", Options{})
	if err == nil || !strings.Contains(err.Error(), "b.npz: array X: compressed with bzip2, which is not read: numpy.savez and numpy.savez_compressed write stored or deflated members") {
		t.Errorf("error %v, want one naming bzip2", err)
	}
}
