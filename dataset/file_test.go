package dataset

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/internal/testmat"
)

// chunkSizes are the chunk sizes every File is read with in the tests:
// a row at a time, an odd size that splits the rows unevenly, and more
// than the test files hold.
var chunkSizes = []int{1, 7, 4096}

// scanAll reads f whole with ScanLabeled in chunks of at most max rows and
// collects what Load returns: the matrix (dense or CSR as the chunks are),
// the labels read by f.Labels once the pass has ended, and f's names,
// shape and notes. It checks the chunks' bounds on the way.
func scanAll(t *testing.T, f File, max int) (*Dataset, error) {
	t.Helper()
	_, cols := f.Dims()
	var data []float64
	indptr := []int{0}
	var ind []int
	var y []int
	next, sparseChunks := 0, false
	err := f.ScanLabeled(context.Background(), max, func(lo int, X mat.Matrix, yc []int) error {
		r, c := X.Dims()
		if lo != next || r < 1 || r > max || c != cols {
			t.Fatalf("%s: chunk at %d of %d × %d, want at %d, at most %d × %d", f.Name(), lo, r, c, next, max, cols)
		}
		if yc != nil && len(yc) != r {
			t.Fatalf("%s: %d labels for %d rows", f.Name(), len(yc), r)
		}
		switch m := X.(type) {
		case *mat.Dense:
			if !f.Sparse() {
				for i := range r {
					data = append(data, m.RawRowView(i)...)
				}
				break
			}
			t.Fatalf("%s: dense chunk from a sparse File", f.Name())
		case *sparse.CSR:
			if !f.Sparse() {
				t.Fatalf("%s: sparse chunk from a dense File", f.Name())
			}
			sparseChunks = true
			for i := range r {
				ri, rv := csr.Row(m, i)
				ind = append(ind, ri...)
				data = append(data, rv...)
				indptr = append(indptr, len(ind))
			}
		default:
			t.Fatalf("%s: chunk of type %T", f.Name(), X)
		}
		y = append(y, yc...)
		next += r
		return nil
	})
	if err != nil {
		return nil, err
	}
	if rows, _ := f.Dims(); rows != next {
		t.Fatalf("%s: Dims says %d rows after a pass of %d", f.Name(), rows, next)
	}
	if !f.Labels().Final {
		t.Fatalf("%s: labels not final after a pass", f.Name())
	}
	ds := &Dataset{Shape: f.Shape(), Columns: f.Columns(), ColumnNumbers: f.ColumnNumbers(), Source: f.Name(), Notes: f.Notes()}
	if f.Labels().Kind != NoLabels {
		ds.Y, ds.Class = f.Labels().Resolve(y)
	}
	switch {
	case sparseChunks || f.Sparse():
		ds.X = sparse.NewCSR(next, cols, indptr, ind, data)
	default:
		ds.X = mat.NewDense(next, cols, data)
	}
	return ds, nil
}

// sameDataset checks that got (a File read whole) is want (Load's):
// values bit for bit, labels, classes, names, shape, notes and source.
func sameDataset(t *testing.T, what string, got, want *Dataset) {
	t.Helper()
	gr, gc := got.X.Dims()
	wr, wc := want.X.Dims()
	if gr != wr || gc != wc {
		t.Fatalf("%s: %d × %d, Load %d × %d", what, gr, gc, wr, wc)
	}
	_, gs := got.X.(*sparse.CSR)
	_, ws := want.X.(*sparse.CSR)
	if gs != ws {
		t.Fatalf("%s: X is %T, Load's %T", what, got.X, want.X)
	}
	if gs {
		g, w := got.X.(*sparse.CSR), want.X.(*sparse.CSR)
		for i := range gr {
			gi, gv := csr.Row(g, i)
			wi, wv := csr.Row(w, i)
			if !slices.Equal(gi, wi) || !sameBits(gv, wv) {
				t.Fatalf("%s: row %d %v %v, Load %v %v", what, i, gi, gv, wi, wv)
			}
		}
	} else {
		for i := range gr {
			for j := range gc {
				if math.Float64bits(got.X.At(i, j)) != math.Float64bits(want.X.At(i, j)) {
					t.Fatalf("%s: X[%d,%d] = %v, Load %v", what, i, j, got.X.At(i, j), want.X.At(i, j))
				}
			}
		}
	}
	eq := func(a, b []int) bool {
		return len(a) == len(b) && (len(a) == 0 || slices.Equal(a, b)) && (a == nil) == (b == nil)
	}
	if !eq(got.Y, want.Y) || !eq(got.Class, want.Class) {
		t.Fatalf("%s: Y %v Class %v, Load %v %v", what, got.Y, got.Class, want.Y, want.Class)
	}
	if !reflect.DeepEqual(got.Shape, want.Shape) || !reflect.DeepEqual(got.Columns, want.Columns) ||
		!reflect.DeepEqual(got.ColumnNumbers, want.ColumnNumbers) || !reflect.DeepEqual(got.Notes, want.Notes) || got.Source != want.Source {
		t.Fatalf("%s: shape %v columns %q %v notes %q source %q; Load %v %q %v %q %q", what,
			got.Shape, got.Columns, got.ColumnNumbers, got.Notes, got.Source,
			want.Shape, want.Columns, want.ColumnNumbers, want.Notes, want.Source)
	}
}

// openAll opens path and reads it whole in chunks of max rows (the error
// of Open or of the pass).
func openAll(t *testing.T, path string, opt Options, max int) (*Dataset, error) {
	t.Helper()
	f, err := Open(path, opt)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return scanAll(t, f, max)
}

// sameAsLoad writes content to a file called name and checks that Open
// and Scan read it as Load does, at every chunk size, twice in a row
// (the second pass reopens the file), from its gzip form for the
// formats gzip may hold, and from a stream for those a stream may be.
func sameAsLoad(t *testing.T, name string, content []byte, opt Options) {
	t.Helper()
	// check compares a File read whole (got, gerr) with the Dataset
	// (want, werr) that Load or ReadStream returns on the same data.
	check := func(what string, got *Dataset, gerr error, want *Dataset, werr error) {
		t.Helper()
		if werr != nil {
			if gerr == nil {
				t.Fatalf("%s: %q: no error, Load's %v", what, content, werr)
			}
			if opt.Shape != nil && gerr.Error() != werr.Error() && strings.Contains(gerr.Error(), "shape") {
				// Open checks Options.Shape against the header's
				// columns; Load, once the rows are read.
				return
			}
			if gerr.Error() != werr.Error() {
				t.Fatalf("%s: %q: error %q, Load's %q", what, content, gerr, werr)
			}
			var ge, we *Error
			if !errors.As(gerr, &ge) || !errors.As(werr, &we) || ge.Row != we.Row || ge.Col != we.Col || ge.Line != we.Line {
				t.Fatalf("%s: error %v at %d,%d,%d, Load's at %d,%d,%d", what, gerr, ge.Row, ge.Col, ge.Line, we.Row, we.Col, we.Line)
			}
			return
		}
		if gerr != nil {
			t.Fatalf("%s: %q: %v, Load reads it", what, content, gerr)
		}
		sameDataset(t, what, got, want)
	}
	path := writeFile(t, name, content)
	want, werr := Load(path, opt)
	for _, max := range chunkSizes {
		f, err := Open(path, opt)
		if err != nil {
			check(fmt.Sprintf("Open %s", name), nil, err, want, werr)
			continue
		}
		for pass := range 2 {
			got, err := scanAll(t, f, max)
			check(fmt.Sprintf("%s, chunks of %d, pass %d", name, max, pass+1), got, err, want, werr)
		}
		f.Close()
	}
	ext := streamFormat(name)
	if _, ok := streams[ext]; !ok {
		return
	}
	gz := writeFile(t, name+".gz", gzipped(content))
	gwant, gwerr := Load(gz, opt)
	for _, max := range chunkSizes {
		got, err := openAll(t, gz, opt, max)
		check(fmt.Sprintf("%s.gz, chunks of %d", name, max), got, err, gwant, gwerr)
	}
	swant, swerr := ReadStream(bytes.NewReader(content), ext, name, opt)
	if ext == ".libsvm" || ext == ".svm" || ext == ".txt" || ext == ".svmlight" {
		// A stream of unknown width is read into memory; with
		// Features as wide as the file it is read in chunks.
		if swerr == nil {
			o := opt
			_, o.Features = swant.X.Dims()
			f, err := OpenStream(bytes.NewReader(content), ext, name, o)
			if err != nil {
				t.Fatalf("stream %s with Features: %v", name, err)
			}
			if _, ok := f.(RowReader); ok {
				t.Fatalf("stream %s with Features is a RowReader", name)
			}
			got, err := scanAll(t, f, 3)
			check("stream "+name+" with Features", got, err, swant, swerr)
		}
	}
	for _, max := range chunkSizes {
		f, err := OpenStream(bytes.NewReader(content), ext, name, opt)
		if err != nil {
			check("OpenStream "+name, nil, err, swant, swerr)
			continue
		}
		got, err := scanAll(t, f, max)
		check(fmt.Sprintf("stream %s, chunks of %d", name, max), got, err, swant, swerr)
		if _, mem := f.(*memFile); err == nil && !mem {
			if err := f.Scan(context.Background(), max, func(int, mat.Matrix) error { return nil }); err != ErrOnePass {
				t.Fatalf("second Scan of stream %s: %v, want ErrOnePass", name, err)
			}
		}
	}
}

func TestOpenCSV(t *testing.T) {
	for _, c := range csvCases {
		for _, opt := range []Options{{}, {Label: "b"}, {Shape: []int{2}}} {
			sameAsLoad(t, "f.csv", []byte(c), opt)
		}
	}
	for _, c := range []string{
		"a\tb\tlabel\n1\t2\t0\n3\t4.5\t1\n",
		"x\ty\n\"1\"\t2\n",
	} {
		sameAsLoad(t, "f.tsv", []byte(c), Options{})
	}
	// Labels of every kind: numbers, words, one-class ±1, unlabeled.
	for _, labels := range [][]string{
		{"1", "0", "1"}, {"yes", "no", "no"}, {"1", "1", "-1"}, {"1", "-1", "-1"}, {"", "1", "-1"},
		{"normal", "anomaly", "", "normal"}, {"outlier", "outlier"}, {"1", "yes"},
	} {
		var b strings.Builder
		b.WriteString("id,a,b,label\n")
		for i, l := range labels {
			fmt.Fprintf(&b, "%d,%d.5,%d,%s\n", i, i, -i, l)
		}
		sameAsLoad(t, "l.csv", []byte(b.String()), Options{})
	}
}

func TestOpenLIBSVM(t *testing.T) {
	for _, c := range libsvmCases {
		sameAsLoad(t, "f.svm", []byte(c), Options{})
	}
	for _, c := range []string{
		"1 1:2 4:1\n-1 2:1\n1 3:1\n",
		"+1 1:2\n+1 2:1\n",
		"1 1:2\n1 2:1\n",
		"3 1:2\n2 2:1\n0 5:1\n",
		"0 1:0 3:0\n1 2:0\n",
	} {
		sameAsLoad(t, "f.libsvm", []byte(c), Options{})
		sameAsLoad(t, "f.libsvm", []byte(c), Options{Features: 7})
	}
	// A random sparse file, read in chunks that end on the stored values
	// (a chunk holds at most chunkValues: here a row of them).
	var b strings.Builder
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 300 {
		fmt.Fprintf(&b, "%d", i%2)
		for j := 1; j < 500; j += 1 + rng.IntN(40) {
			fmt.Fprintf(&b, " %d:%g", j, rng.NormFloat64())
		}
		b.WriteString("\n")
	}
	sameAsLoad(t, "r.svm", []byte(b.String()), Options{})
}

func TestOpenARFF(t *testing.T) {
	for _, c := range []string{
		"@relation r\n@attribute a numeric\n@attribute 'outlier' {'no','yes'}\n@data\n1,'no'\n2,yes\n3,?\n",
		"% c\n@RELATION r\n@ATTRIBUTE \"a b\" REAL\n@attribute class {x,y,z}\n@DATA\n1,z\n2,x\n",
		"@relation r\n@attribute label numeric\n@attribute a integer\n@data\n1,2\n0,3\n",
		"@relation r\n@attribute id numeric\n@attribute a numeric\n@attribute b numeric\n@data\n{0 1}\n{1 2, 2 3}\n1,2,3\n",
		"@relation r\n@attribute a numeric\n@attribute class {yes,no}\n@data\n1,yes\n{1 no}\n{}\n",
	} {
		sameAsLoad(t, "f.arff", []byte(c), Options{})
	}
}

// npyCases returns .npy files of every dtype and order the decoder
// reads, 2-D and N-d, with the values Load reads them as.
func npyCases() map[string][]byte {
	rng := rand.New(rand.NewPCG(7, 7))
	out := map[string][]byte{}
	for _, descr := range []string{"<f8", ">f8", "<f4", ">f4", "<f2", "<i8", ">i4", "<i2", "|i1", "<u8", "<u4", ">u2", "|u1", "|b1"} {
		for _, fortran := range []bool{false, true} {
			for _, shape := range [][]int{{13, 5}, {9}, {11, 3, 4}, {1, 7}, {40, 1}} {
				n := 1
				for _, s := range shape {
					n *= s
				}
				size := dtypeSize(descr)
				raw := make([]byte, n*size)
				for i := range raw {
					raw[i] = byte(rng.IntN(256))
				}
				if descr[1] == 'f' {
					// finite values: random bytes make NaNs
					for i := 0; i < n; i++ {
						v := rng.NormFloat64() * 100
						b := raw[i*size : (i+1)*size]
						switch size {
						case 8:
							putBits(b, descr[0] == '>', math.Float64bits(v))
						case 4:
							putBits(b, descr[0] == '>', uint64(math.Float32bits(float32(v))))
						case 2:
							putBits(b, descr[0] == '>', uint64(rng.IntN(0x7c00))) // finite half floats
						}
					}
				}
				out[fmt.Sprintf("%s-%v-%v.npy", strings.NewReplacer("<", "le", ">", "be", "|", "").Replace(descr), fortran, shape)] = append(testmat.NPY(descr, fortran, shape, nil), raw...)
			}
		}
	}
	return out
}

// putBits writes the low len(b) bytes of v into b in the byte order.
func putBits(b []byte, big bool, v uint64) {
	for i := range b {
		k := i
		if big {
			k = len(b) - 1 - i
		}
		b[k] = byte(v >> (8 * i))
	}
}

func TestOpenNPY(t *testing.T) {
	for name, content := range npyCases() {
		t.Run(name, func(t *testing.T) {
			sameAsLoad(t, name, content, Options{})
			f, err := Open(writeFile(t, name, content), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, ok := f.(RowReader); !ok {
				t.Fatalf("an .npy File is not a RowReader")
			}
		})
	}
	sameAsLoad(t, "s.npy", npyBytes("<f8", false, []int{4, 3}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}), Options{Shape: []int{3, 1}})
}

func TestOpenNPZ(t *testing.T) {
	x := npyBytes("<f8", true, []int{6, 2}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	xc := npyBytes("<f8", false, []int{6, 2}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	x3 := npyBytes("<i2", false, []int{6, 1, 2}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	y := npyBytes("<i8", false, []int{6}, []float64{0, 1, 0, 0, 1, 0})
	pm := npyBytes("<i8", false, []int{6}, []float64{1, 1, -1, 1, 1, -1})
	class := npyBytes("<i8", false, []int{6}, []float64{0, 3, 2, 2, 1, 0})
	split := npyBytes("<i8", false, []int{6}, []float64{0, 0, 0, 1, 1, 1})
	for _, method := range []uint16{zip.Store, zip.Deflate} {
		for _, c := range []struct {
			members [][2][]byte
			opt     Options
		}{
			{[][2][]byte{member("X.npy", x), member("y.npy", y)}, Options{}},
			{[][2][]byte{member("X.npy", xc), member("y.npy", y), member("split.npy", split)}, Options{}},
			{[][2][]byte{member("X.npy", xc), member("y.npy", pm)}, Options{}},
			{[][2][]byte{member("X.npy", xc), member("y.npy", class)}, Options{}},
			{[][2][]byte{member("X.npy", x3), member("y.npy", class)}, Options{}},
			{[][2][]byte{member("X.npy", x3), member("y.npy", y)}, Options{Label: "y"}},
			{[][2][]byte{member("X.npy", x3), member("y.npy", class)}, Options{Label: "y"}},
			{[][2][]byte{member("X.npy", xc), member("lab.npy", y)}, Options{Label: "lab"}},
			{[][2][]byte{member("X.npy", xc)}, Options{Label: "lab"}},
			{[][2][]byte{member("X.npy", xc)}, Options{}},
			{[][2][]byte{member("X.npy", xc), member("y.npy", npyBytes("<f8", false, []int{6}, []float64{0, 1, 0.5, 0, 0, 0}))}, Options{}},
			{[][2][]byte{member("X.npy", npyBytes("<f8", false, []int{2, 2}, []float64{1, 2, nan(), 4}))}, Options{}},
			{[][2][]byte{member("X.npy", xc[:len(xc)-8])}, Options{}},
			{[][2][]byte{member("X.npy", append(slices.Clone(xc), 0, 0, 0, 0, 0, 0, 0, 0))}, Options{}},
		} {
			sameAsLoad(t, "f.npz", npzWith(method, c.members...), c.opt)
		}
	}
	// Stored X is read by index; deflated X in order, but in memory when
	// it is in Fortran order.
	for _, c := range []struct {
		method uint16
		x      []byte
		index  bool
	}{{zip.Store, x, true}, {zip.Store, xc, true}, {zip.Deflate, xc, false}, {zip.Deflate, x, true}} {
		f, err := Open(writeFile(t, "f.npz", npzWith(c.method, member("X.npy", c.x))), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := f.(RowReader); ok != c.index {
			t.Errorf("method %d, %s: RowReader %v, want %v", c.method, c.x[:60], ok, c.index)
		}
		f.Close()
	}
}

// TestOpenErrors: every file TestLoadErrors has Load refuse, Open and Scan
// refuse with the same message, row, column and line.
func TestOpenErrors(t *testing.T) {
	for _, tc := range loadErrorCases() {
		t.Run(tc.name, func(t *testing.T) {
			sameAsLoad(t, tc.file, []byte(tc.content), tc.opt)
		})
	}
}

// TestReadRows: rows read by index, in any order and with repeats, are
// Load's rows, from .npy files of every dtype and order, a stored .npz
// member, and Files in memory.
func TestReadRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(t *testing.T, f File, want mat.Matrix) {
		t.Helper()
		rr, ok := f.(RowReader)
		if !ok {
			t.Fatalf("%s: not a RowReader", f.Name())
		}
		n, d := want.Dims()
		for _, k := range []int{1, 3, n, 2 * n} {
			idx := make([]int, k)
			for i := range idx {
				idx[i] = rng.IntN(n)
			}
			if k == n {
				for i := range idx {
					idx[i] = n - 1 - i // every row, backwards
				}
			}
			got, err := rr.ReadRows(context.Background(), idx)
			if err != nil {
				t.Fatalf("%s: ReadRows(%v): %v", f.Name(), idx, err)
			}
			if r, c := got.Dims(); r != k || c != d {
				t.Fatalf("%s: ReadRows of %d rows: %d × %d", f.Name(), k, r, c)
			}
			for i, r := range idx {
				for j := range d {
					if math.Float64bits(got.At(i, j)) != math.Float64bits(want.At(r, j)) {
						t.Fatalf("%s: ReadRows(%v)[%d][%d] = %v, row %d of Load %v", f.Name(), idx, i, j, got.At(i, j), r, want.At(r, j))
					}
				}
			}
		}
	}
	// checkFile checks the File Open gives of a file against Load's rows.
	checkFile := func(name string, content []byte) {
		t.Helper()
		path := writeFile(t, name, content)
		ds, err := Load(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		f, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		check(t, f, ds.X)
	}
	for name, content := range npyCases() {
		checkFile(name, content)
	}
	// Rows far apart, nearby, and past the span of one read, in a file
	// of 5,000 rows.
	const n, d = 5000, 37
	vals := make([]float64, n*d)
	for i := range vals {
		vals[i] = rng.NormFloat64()
	}
	for _, fortran := range []bool{false, true} {
		for _, method := range []uint16{0, zip.Store} {
			content := npyBytes("<f8", fortran, []int{n, d}, vals)
			name := "big.npy"
			if method == zip.Store {
				content, name = npzWith(zip.Store, member("X.npy", content)), "big.npz"
			}
			checkFile(name, content)
		}
	}
	// In memory: a LIBSVM stream of unknown width.
	f, err := OpenStream(strings.NewReader("1 1:2 3:1\n0 2:5\n1 1:1\n"), ".libsvm", "s", Options{})
	if err != nil {
		t.Fatal(err)
	}
	ds, _ := ReadStream(strings.NewReader("1 1:2 3:1\n0 2:5\n1 1:1\n"), ".libsvm", "s", Options{})
	check(t, f, ds.X)
}

// TestReadRowsNonFinite: a NaN among the rows read is an error naming its
// row and column, as Load's is.
func TestReadRowsNonFinite(t *testing.T) {
	for _, fortran := range []bool{false, true} {
		vals := []float64{1, 2, 3, nan(), 5, 6}
		if fortran {
			vals = []float64{1, 3, 5, 2, nan(), 6} // the same rows, column by column
		}
		path := writeFile(t, "n.npy", npyBytes("<f8", fortran, []int{3, 2}, vals))
		f, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		rr := f.(RowReader)
		if _, err := rr.ReadRows(context.Background(), []int{0, 2}); err != nil {
			t.Errorf("rows without NaN: %v", err)
		}
		_, err = rr.ReadRows(context.Background(), []int{2, 1, 0})
		var de *Error
		if !errors.As(err, &de) || de.Row != 2 || de.Col != 2 || !strings.Contains(err.Error(), "NaN") {
			t.Errorf("fortran %v: %v, want the NaN of row 2, column 2", fortran, err)
		}
		f.Close()
	}
}

// TestFileKinds: which Files read rows by index, and what Dims says
// before and after a pass.
func TestFileKinds(t *testing.T) {
	csvPath := writeFile(t, "a.csv", []byte("a,b\n1,2\n3,4\n"))
	svmPath := writeFile(t, "a.svm", []byte("1 1:2\n0 3:1\n"))
	for _, c := range []struct {
		path     string
		index    bool
		rows     int // before a pass
		cols     int
		features int
	}{
		{csvPath, false, -1, 2, 0},
		{svmPath, false, 2, 3, 0}, // the width pass counts the rows
		{svmPath, false, -1, 5, 5},
		{writeFile(t, "a.csv.gz", gzipped([]byte("a,b\n1,2\n3,4\n"))), false, -1, 2, 0},
		{writeFile(t, "a.npy.gz", gzipped(npyBytes("<f8", false, []int{2, 1}, []float64{1, 2}))), false, 2, 1, 0},
		{writeFile(t, "a.npy", npyBytes("<f8", false, []int{2, 1}, []float64{1, 2})), true, 2, 1, 0},
	} {
		f, err := Open(c.path, Options{Features: c.features})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := f.(RowReader); ok != c.index {
			t.Errorf("%s: RowReader %v, want %v", c.path, ok, c.index)
		}
		if r, d := f.Dims(); r != c.rows || d != c.cols {
			t.Errorf("%s: Dims %d, %d before a pass, want %d, %d", c.path, r, d, c.rows, c.cols)
		}
		if err := f.Scan(context.Background(), 1, func(int, mat.Matrix) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if r, _ := f.Dims(); r != 2 {
			t.Errorf("%s: %d rows after a pass", c.path, r)
		}
		f.Close()
	}
}

// TestOpenLIBSVMWidth: with Options.Features (a model's width) a LIBSVM
// file is read that wide with no first pass, and an index past it is an
// error naming the line; without it the first pass finds the width.
func TestOpenLIBSVMWidth(t *testing.T) {
	path := writeFile(t, "w.svm", []byte("1 1:2\n0 2:1\n1 9:1\n"))
	f, err := Open(path, Options{Features: 4})
	if err != nil {
		t.Fatal(err)
	}
	err = f.Scan(context.Background(), 10, func(int, mat.Matrix) error { return nil })
	var we *WidthError
	var de *Error
	if !errors.As(err, &we) || !errors.As(err, &de) || de.Line != 3 || we.Index != 9 || we.Width != 4 {
		t.Errorf("index 9 of 4 features: %v", err)
	}
	t.Log(err)
	f.Close()
	if f, err = Open(path, Options{}); err != nil {
		t.Fatal(err)
	}
	if r, c := f.Dims(); r != 3 || c != 9 || !f.Labels().Final {
		t.Errorf("Dims %d × %d, labels %+v after the width pass", r, c, f.Labels())
	}
	f.Close()
}

// TestLabelsPending: a CSV column of 1 and −1 is read by the one-class
// convention only when the pass has seen every row: before, Labels is
// not final and ScanLabeled hands the labels over as written.
func TestLabelsPending(t *testing.T) {
	f, err := Open(writeFile(t, "p.csv", []byte("a,label\n1,1\n2,1\n3,-1\n")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if l := f.Labels(); l.Final || l.Kind != AnomalyLabels || l.OneClass {
		t.Errorf("before a pass: %+v", l)
	}
	var y []int
	f.ScanLabeled(context.Background(), 2, func(_ int, _ mat.Matrix, yc []int) error {
		y = append(y, yc...)
		return nil
	})
	l := f.Labels()
	if !slices.Equal(y, []int{1, 1, -1}) || !l.Final || !l.OneClass || len(f.Notes()) != 1 {
		t.Fatalf("labels %v, %+v, notes %q", y, l, f.Notes())
	}
	if ay, _ := l.Resolve(y); !slices.Equal(ay, []int{0, 0, 1}) {
		t.Errorf("resolved %v", ay)
	}
}

// diagonalCSV is a CSV of columns a and b and n rows, row i holding i, i.
func diagonalCSV(n int) string {
	var b strings.Builder
	b.WriteString("a,b\n")
	for i := range n {
		fmt.Fprintf(&b, "%d,%d\n", i, i)
	}
	return b.String()
}

// TestScanStops: Scan returns fn's error and ctx's, and a File can be
// read again after a pass that stopped early.
func TestScanStops(t *testing.T) {
	for _, name := range []string{"s.csv", "s.npy"} {
		content := []byte(diagonalCSV(100))
		if name == "s.npy" {
			content = npyBytes("<f8", true, []int{100, 2}, make([]float64, 200))
		}
		f, err := Open(writeFile(t, name, content), Options{})
		if err != nil {
			t.Fatal(err)
		}
		stop := errors.New("stop")
		if err := f.Scan(context.Background(), 10, func(lo int, _ mat.Matrix) error {
			if lo == 20 {
				return stop
			}
			return nil
		}); err != stop {
			t.Errorf("%s: %v, want fn's error", name, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		if err := f.Scan(ctx, 10, func(lo int, _ mat.Matrix) error {
			cancel()
			return nil
		}); err != context.Canceled {
			t.Errorf("%s: %v, want ctx's error", name, err)
		}
		rows := 0
		if err := f.Scan(context.Background(), 10, func(_ int, X mat.Matrix) error {
			r, _ := X.Dims()
			rows += r
			return nil
		}); err != nil || rows != 100 {
			t.Errorf("%s: pass after stops: %d rows, %v", name, rows, err)
		}
		f.Close()
		if err := f.Scan(context.Background(), 10, func(int, mat.Matrix) error { return nil }); err == nil {
			t.Errorf("%s: Scan after Close", name)
		}
	}
}

// TestProgress: a pass reports its bytes as it goes, ending at the total.
func TestProgress(t *testing.T) {
	csv := diagonalCSV(20000)
	for _, c := range []struct {
		name    string
		content []byte
	}{
		{"p.csv", []byte(csv)},
		{"p.csv.gz", gzipped([]byte(csv))},
		{"p.npy", npyBytes("<f8", false, []int{20000, 2}, make([]float64, 40000))},
	} {
		var calls int
		var last, total int64
		f, err := Open(writeFile(t, c.name, c.content), Options{Progress: func(done, all int64) {
			if done < last {
				t.Errorf("%s: progress went back from %d to %d", c.name, last, done)
			}
			calls++
			last, total = done, all
		}})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Scan(context.Background(), 1000, func(int, mat.Matrix) error { return nil }); err != nil {
			t.Fatal(err)
		}
		want := int64(len(c.content))
		if c.name == "p.npy" {
			want = 20000 * 2 * 8
		}
		if calls < 2 || last != want || total != want {
			t.Errorf("%s: %d calls, last %d of %d, want %d of %d", c.name, calls, last, total, want, want)
		}
		f.Close()
	}
	// A stream: the total is not known.
	f, err := OpenStream(strings.NewReader(csv), ".csv", "s", Options{Progress: func(done, all int64) {
		if all != -1 {
			t.Errorf("stream total %d", all)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	f.Scan(context.Background(), 1000, func(int, mat.Matrix) error { return nil })
}

// TestScanConcurrent: a second Scan while one runs is an error, not a
// race; ReadRows may run beside a Scan.
func TestScanConcurrent(t *testing.T) {
	path := writeFile(t, "c.npy", npyBytes("<f8", false, []int{50, 2}, make([]float64, 100)))
	f, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = f.Scan(context.Background(), 10, func(int, mat.Matrix) error {
		if _, err := f.(RowReader).ReadRows(context.Background(), []int{3, 4}); err != nil {
			return err
		}
		return f.Scan(context.Background(), 10, func(int, mat.Matrix) error { return nil })
	})
	if !errors.Is(err, errConcurrent) {
		t.Errorf("nested Scan: %v", err)
	}
	// ReadRows from other goroutines while a Scan runs (go test -race).
	for _, fortran := range []bool{false, true} {
		vals := make([]float64, 2000)
		for i := range vals {
			vals[i] = float64(i)
		}
		f, err := Open(writeFile(t, "r.npy", npyBytes("<f8", fortran, []int{1000, 2}, vals)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := f.(RowReader).ReadRows(context.Background(), []int{5, 900, 5})
		done := make(chan error, 4)
		for range 4 {
			go func() {
				for range 50 {
					got, err := f.(RowReader).ReadRows(context.Background(), []int{5, 900, 5})
					if err == nil && !mat.Equal(got, want) {
						err = errors.New("rows differ")
					}
					if err != nil {
						done <- err
						return
					}
				}
				done <- nil
			}()
		}
		if err := f.Scan(context.Background(), 7, func(int, mat.Matrix) error { return nil }); err != nil {
			t.Fatal(err)
		}
		for range 4 {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
		f.Close()
	}
}

// TestOpenFileErrors: a missing file, a directory and an unknown
// extension are Load's errors.
func TestOpenFileErrors(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{dir + "/missing.csv", dir, dir + "/a.xyz"} {
		_, lerr := Load(p, Options{})
		_, oerr := Open(p, Options{})
		if lerr == nil || oerr == nil || lerr.Error() != oerr.Error() {
			t.Errorf("%s: Open %v, Load %v", p, oerr, lerr)
		}
	}
}

// xDataErr reports whether err is one Load finds only by reading an .npz's
// X through: its values, its length, its checksum.
func xDataErr(err error) bool {
	m := err.Error()
	for _, s := range []string{"X holds", "array X: more data follow", "array X: truncated", "array X: cannot read data", "array X: zip: "} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// FuzzOpen reads any data through Read and through a File (openAt, the
// function behind Open, on the same bytes) and checks that the two agree
// as sameAsLoad checks it: the same values, labels, names and notes, or
// the same error.
func FuzzOpen(f *testing.F) {
	for _, c := range csvCases {
		f.Add([]byte(c), ".csv")
	}
	for _, c := range libsvmCases {
		f.Add([]byte(c), ".svm")
	}
	for _, tc := range loadErrorCases() {
		f.Add([]byte(tc.content), streamFormat(tc.file))
	}
	f.Add(npyBytes("<i2", true, []int{3, 2, 2}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}), ".npy")
	f.Add(npzWith(zip.Store, member("X.npy", npyBytes("<f8", false, []int{3, 1}, []float64{1, 2, 3})), member("y.npy", npyBytes("<i8", false, []int{3}, []float64{1, 1, -1}))), ".npz")
	f.Fuzz(func(t *testing.T, data []byte, ext string) {
		name := "f" + ext
		if !Supported(name) {
			return
		}
		want, werr := Read(bytes.NewReader(data), int64(len(data)), name, Options{})
		file, gerr := openAt(bytes.NewReader(data), int64(len(data)), name, Options{}, nil)
		var got *Dataset
		atOpen := gerr != nil
		if gerr == nil {
			got, gerr = scanAll(t, file, 5)
		}
		var me *MemoryError
		if errors.As(werr, &me) {
			return // Load holds the values, a File a chunk
		}
		if werr != nil && gerr == nil && strings.Contains(werr.Error(), "array X: ") && strings.Contains(werr.Error(), "zip: ") {
			return // a stored member's CRC-32 and data descriptor: read by Load, not by a File
		}
		if werr != nil && gerr != nil && atOpen && strings.HasSuffix(strings.ToLower(name), ".npz") && xDataErr(werr) {
			// Two faults: Load reads X whole before its labels, Open
			// checks the labels before any row of X is read.
			return
		}
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("%s %q: File's error %v, Read's %v", name, data, gerr, werr)
		}
		if werr == nil {
			sameDataset(t, name, got, want)
		}
	})
}

// TestOpenSharedFiles reads the real files, the ADBench .npz of the
// shared data folder (stored members in Fortran order: int16, uint8,
// float64), its tensor .npz (deflated, read in order) and the module's
// example files, through Open as Load
// reads them, and draws rows of each by index.
func TestOpenSharedFiles(t *testing.T) {
	needShared(t)
	var paths []string
	for _, dir := range []string{filepath.Join(sharedData, "adbench"), filepath.Join(sharedData, "tensor"), filepath.Join("..", "testdata")} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if Supported(e.Name()) {
				paths = append(paths, filepath.Join(dir, e.Name()))
			}
		}
	}
	rng := rand.New(rand.NewPCG(5, 5))
	for _, path := range paths {
		want, err := Load(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, max := range []int{7, 4096} {
			got, err := openAll(t, path, Options{}, max)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			sameDataset(t, path, got, want)
		}
		f, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rr, ok := f.(RowReader); ok {
			n, d := want.X.Dims()
			idx := make([]int, 100)
			for i := range idx {
				idx[i] = rng.IntN(n)
			}
			got, err := rr.ReadRows(context.Background(), idx)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			for i, r := range idx {
				for j := range d {
					if got.At(i, j) != want.X.At(r, j) {
						t.Fatalf("%s: row %d, column %d: %v, Load %v", path, r, j, got.At(i, j), want.X.At(r, j))
					}
				}
			}
		} else if strings.Contains(path, "adbench") {
			t.Errorf("%s (stored members): not a RowReader", path)
		}
		f.Close()
	}
	t.Logf("%d files", len(paths))
}
