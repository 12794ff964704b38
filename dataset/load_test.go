package dataset

import (
	"bytes"
	"compress/gzip"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/james-bowman/sparse"
	"github.com/sbinet/npyio/npy"
	"gonum.org/v1/gonum/mat"
)

func TestCSV(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		opt           Options
		x             []float64
		y             []int
		cols          []string
		shape         []int
	}{
		{name: "label last", content: "a,b,label\n1,2,0\n3,4,1\n", x: []float64{1, 2, 3, 4}, y: []int{0, 1}, cols: []string{"a", "b"}},
		{name: "y first, spaces, case", content: " Y , a,b\n1, 5 ,6\n-1,7,8\n", x: []float64{5, 6, 7, 8}, y: []int{1, -1}, cols: []string{"a", "b"}},
		{name: "empty label is unlabeled", content: "a,label\n1,\n2,1.0\n", x: []float64{1, 2}, y: []int{-1, 1}, cols: []string{"a"}},
		{name: "no label column", content: "a,b\n1,2\n", x: []float64{1, 2}, cols: []string{"a", "b"}},
		{name: "named label", content: "target,a,label\n1,2,3\n", opt: Options{Label: "TARGET"}, x: []float64{2, 3}, y: []int{1}, cols: []string{"a", "label"}},
		{name: "BOM, CRLF, blank line, exponent", content: "\ufeffa,b\r\n1e-3,-2\r\n\r\n0x1p-2,3\r\n", x: []float64{1e-3, -2, 0.25, 3}, cols: []string{"a", "b"}},
		{name: "quoted header and shape", content: "\"p,1\",p2,p3,p4\n1,2,3,4\n", opt: Options{Shape: []int{2, 2}}, x: []float64{1, 2, 3, 4}, cols: []string{"p,1", "p2", "p3", "p4"}, shape: []int{2, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds, err := Load(writeFile(t, "d.csv", []byte(tc.content)), tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			got := ds.X.(*mat.Dense).RawMatrix().Data
			if !slices.Equal(got, tc.x) || !slices.Equal(ds.Y, tc.y) || !slices.Equal(ds.Columns, tc.cols) || !slices.Equal(ds.Shape, tc.shape) {
				t.Errorf("X %v Y %v cols %q shape %v; want %v %v %q %v", got, ds.Y, ds.Columns, ds.Shape, tc.x, tc.y, tc.cols, tc.shape)
			}
		})
	}
}

// TestNPYOrderAndDtypes writes A[i,j,k] = 100i + 10j + k (values chosen so
// that every position is recognisable) in C and Fortran order and in every
// dtype of the ADBench files, and checks the row-major n × (C·T) result.
func TestNPYOrderAndDtypes(t *testing.T) {
	const n, c, m = 2, 3, 4
	val := func(i, j, k int) float64 { return float64(100*i + 10*j + k) }
	var cOrder, fOrder []float64
	for i := 0; i < n; i++ {
		for j := 0; j < c; j++ {
			for k := 0; k < m; k++ {
				cOrder = append(cOrder, val(i, j, k))
			}
		}
	}
	for k := 0; k < m; k++ {
		for j := 0; j < c; j++ {
			for i := 0; i < n; i++ {
				fOrder = append(fOrder, val(i, j, k))
			}
		}
	}
	want := mat.NewDense(n, c*m, cOrder)
	for _, dt := range []string{"<f8", "<i2", "|u1", "<i8"} {
		for _, fortran := range []bool{false, true} {
			data := cOrder
			if fortran {
				data = fOrder
			}
			ds, err := Load(writeFile(t, "x.npy", npyBytes(dt, fortran, []int{n, c, m}, data)), Options{})
			if err != nil {
				t.Fatalf("%s fortran=%v: %v", dt, fortran, err)
			}
			if !mat.Equal(ds.X, want) || !slices.Equal(ds.Shape, []int{c, m}) {
				t.Errorf("%s fortran=%v: X %v shape %v", dt, fortran, mat.Formatted(ds.X), ds.Shape)
			}
		}
	}
	// 2-D Fortran: X[i,j] = 10i + j stored column by column.
	ds, err := Load(writeFile(t, "x.npy", npyBytes("<i2", true, []int{3, 2}, []float64{0, 10, 20, 1, 11, 21})), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(ds.X, mat.NewDense(3, 2, []float64{0, 1, 10, 11, 20, 21})) || ds.Shape != nil {
		t.Errorf("2-D Fortran: %v", mat.Formatted(ds.X))
	}
	// 1-D X is one feature; Options.Shape overrides.
	ds, err = Load(writeFile(t, "x.npy", npyBytes("<f8", false, []int{3}, []float64{1, 2, 3})), Options{})
	if err != nil || ds.Cols() != 1 || ds.Rows() != 3 {
		t.Errorf("1-D X: %v %v", ds, err)
	}
}

// TestNPYWrittenByNPYIO reads a file written by github.com/sbinet/npyio.
func TestNPYWrittenByNPYIO(t *testing.T) {
	var b bytes.Buffer
	m := mat.NewDense(2, 3, []float64{1.5, -2, 3, 4, 5, 6e10})
	if err := npy.Write(&b, m); err != nil {
		t.Fatal(err)
	}
	ds, err := Read(bytes.NewReader(b.Bytes()), int64(b.Len()), "m.npy", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(ds.X, m) {
		t.Errorf("got %v", mat.Formatted(ds.X))
	}
}

func TestNPZLabels(t *testing.T) {
	x2 := npyBytes("<f8", false, []int{3, 2}, []float64{1, 2, 3, 4, 5, 6})
	x3 := npyBytes("<f8", false, []int{3, 1, 2}, []float64{1, 2, 3, 4, 5, 6})
	for _, tc := range []struct {
		name         string
		x, y         []byte
		wantY, class []int
	}{
		{name: "binary y", x: x2, y: npyBytes("<i8", false, []int{3}, []float64{0, 1, 0}), wantY: []int{0, 1, 0}},
		{name: "i4-like int16 y", x: x2, y: npyBytes("<i2", false, []int{3}, []float64{1, 1, 0}), wantY: []int{1, 1, 0}},
		{name: "class y", x: x2, y: npyBytes("<i8", false, []int{3}, []float64{0, 2, 3}), class: []int{0, 2, 3}},
		{name: "tensor y is class", x: x3, y: npyBytes("<i8", false, []int{3}, []float64{0, 1, 0}), class: []int{0, 1, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := npzBytes(map[string][]byte{"X.npy": tc.x, "y.npy": tc.y}, "X.npy", "y.npy")
			ds, err := Read(bytes.NewReader(b), int64(len(b)), "d.npz", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ds.Y, tc.wantY) || !slices.Equal(ds.Class, tc.class) {
				t.Errorf("Y %v Class %v, want %v %v", ds.Y, ds.Class, tc.wantY, tc.class)
			}
		})
	}
}

func TestLIBSVM(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		dense         []float64
		r, c          int
		y, class      []int
	}{
		{name: "0/1 labels", content: "1 1:0.5 3:2\n0 2:-1\n", r: 2, c: 3, dense: []float64{0.5, 0, 2, 0, -1, 0}, y: []int{1, 0}},
		{name: "one-class +1/-1", content: "+1 1:1\n-1 2:1 # outlier\n+1 qid:7 1:2\n", r: 3, c: 2, dense: []float64{1, 0, 0, 1, 2, 0}, y: []int{0, 1, 0}},
		{name: "signed +1 alone is normal", content: "+1 1:1\n+1 1:2\n", r: 2, c: 1, dense: []float64{1, 2}, y: []int{0, 0}},
		{name: "unsigned 1 alone is anomaly", content: "1 1:1\n1 1:2\n", r: 2, c: 1, dense: []float64{1, 2}, y: []int{1, 1}},
		{name: "1/-1 unsigned", content: "1 1:1\n-1 1:2\n", r: 2, c: 1, dense: []float64{1, 2}, y: []int{0, 1}},
		{name: "multi-class", content: "# header comment\n3 1:1\n\n2 1:2\n", r: 2, c: 1, dense: []float64{1, 2}, class: []int{3, 2}},
		{name: "label only row", content: "0 2:5\n1\n", r: 2, c: 2, dense: []float64{0, 5, 0, 0}, y: []int{0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds, err := Load(writeFile(t, "d.svm", []byte(tc.content)), Options{})
			if err != nil {
				t.Fatal(err)
			}
			sp, ok := ds.X.(*sparse.CSR)
			if !ok {
				t.Fatalf("X is %T, want *sparse.CSR", ds.X)
			}
			if !mat.Equal(sp, mat.NewDense(tc.r, tc.c, tc.dense)) || !slices.Equal(ds.Y, tc.y) || !slices.Equal(ds.Class, tc.class) {
				t.Errorf("X %v Y %v Class %v", mat.Formatted(sp), ds.Y, ds.Class)
			}
		})
	}
}

// TestCSVUnnamedColumns reads the two unnamed columns a CSV commonly has:
// the row index of pandas' to_csv (first, not read, with a note) and the
// empty column of a trailing comma (last, not read).
func TestCSVUnnamedColumns(t *testing.T) {
	ds, err := Load(writeFile(t, "d.csv", []byte(",a,b,label,\n0,1.5,2,0,\n1,3,4,1,\n")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := ds.X.(*mat.Dense).RawMatrix().Data
	if !slices.Equal(got, []float64{1.5, 2, 3, 4}) || !slices.Equal(ds.Y, []int{0, 1}) || !slices.Equal(ds.Columns, []string{"a", "b"}) || len(ds.Notes) != 1 || !strings.Contains(ds.Notes[0], "row index") {
		t.Errorf("X %v Y %v cols %q notes %q", got, ds.Y, ds.Columns, ds.Notes)
	}
}

// TestLIBSVMFeatures widens a LIBSVM file to Options.Features columns when
// its highest index is lower (the trailing features are zero, as
// load_svmlight_file(n_features=…) reads them), and keeps a wider file's
// own width.
func TestLIBSVMFeatures(t *testing.T) {
	path := writeFile(t, "s.libsvm", []byte("0 1:0.5\n1 3:2\n"))
	for _, c := range []struct{ features, want int }{{0, 3}, {5, 5}, {2, 3}} {
		ds, err := Load(path, Options{Features: c.features})
		if err != nil {
			t.Fatal(err)
		}
		if _, cols := ds.X.Dims(); cols != c.want {
			t.Errorf("Features %d: %d columns, want %d", c.features, cols, c.want)
		}
	}
}

// TestCSVRowIdentifiers reads the columns that name rows rather than
// measure them: an id column (any values, text included; not read, with a
// note), pandas' "Unnamed: 0" for a row index read and written again (not
// read), and refuses "Unnamed: N" elsewhere and a file left without
// features.
func TestCSVRowIdentifiers(t *testing.T) {
	ds, err := Load(writeFile(t, "id.csv", []byte("ID,a,label\nr-17,1.5,0\nr-18,3,1\n")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ds.X.(*mat.Dense).RawMatrix().Data; !slices.Equal(got, []float64{1.5, 3}) || !slices.Equal(ds.Columns, []string{"a"}) || len(ds.Notes) != 1 || !strings.Contains(ds.Notes[0], `column 1, "ID", is taken as the row identifier`) {
		t.Errorf("X %v cols %q notes %q", got, ds.Columns, ds.Notes)
	}
	ds, err = Load(writeFile(t, "u.csv", []byte("Unnamed: 0,a,id,b\n0,1,7,2\n1,3,8,4\n")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ds.X.(*mat.Dense).RawMatrix().Data; !slices.Equal(got, []float64{1, 2, 3, 4}) || !slices.Equal(ds.Columns, []string{"a", "b"}) || len(ds.Notes) != 2 || !strings.Contains(ds.Notes[0], `"Unnamed: 0", pandas' name`) {
		t.Errorf("X %v cols %q notes %q", got, ds.Columns, ds.Notes)
	}
	for content, want := range map[string]string{
		"a,Unnamed: 1,b\n1,2,3\n": `row 1, column 2: the column has no name in the header ("Unnamed: 1", pandas' name for an unnamed column)`,
		"id,label\n1,0\n":         `no feature columns: the columns ("id", "label") are the label, a row index or a row identifier`,
	} {
		_, err := Load(writeFile(t, "e.csv", []byte(content)), Options{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", content, err, want)
		}
	}
}

// TestCSVLabelWords reads label columns of words: a normal/anomaly pair
// in any case (empty cells unlabeled), and one word alone.
func TestCSVLabelWords(t *testing.T) {
	for content, want := range map[string][]int{
		"label,a\nNormal,1\nAnomaly,2\n,3\nnormal,4\n": {0, 1, -1, 0},
		"a,y\n1,YES\n2,no\n":                           {1, 0},
		"a,y\n1,inlier\n2,inlier\n":                    {0, 0},
	} {
		ds, err := Load(writeFile(t, "w.csv", []byte(content)), Options{})
		if err != nil {
			t.Errorf("%q: %v", content, err)
		} else if !slices.Equal(ds.Y, want) {
			t.Errorf("%q: Y %v, want %v", content, ds.Y, want)
		}
	}
}

// TestCSVYColumn reads a column named y: the labels when no column is
// named label, a feature beside one (x, y coordinates); a y column of
// other numbers is an error that says why it was taken as the labels.
func TestCSVYColumn(t *testing.T) {
	ds, err := Load(writeFile(t, "y.csv", []byte("x,y,label\n1,2.5,0\n3,4,1\n")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ds.X.(*mat.Dense).RawMatrix().Data; !slices.Equal(got, []float64{1, 2.5, 3, 4}) || !slices.Equal(ds.Y, []int{0, 1}) || !slices.Equal(ds.Columns, []string{"x", "y"}) {
		t.Errorf("X %v Y %v cols %q", got, ds.Y, ds.Columns)
	}
	_, err = Load(writeFile(t, "e.csv", []byte("x,y\n1,0.5\n")), Options{})
	if err == nil || !strings.Contains(err.Error(), `label "0.5": labels must be 1 (anomaly), 0 (normal) or -1/empty (unlabeled); the column is taken as the labels for its name "y": if it holds a feature, rename it`) {
		t.Errorf("error %v", err)
	}
}

// TestTSV reads tab-separated values: the CSV rules but for the separator,
// with quotes as plain characters and an empty cell an error in place
// (a tab is never skipped as leading space).
func TestTSV(t *testing.T) {
	ds, err := Load(writeFile(t, "d.tsv", []byte("a\tb c\tlabel\n1\t 2 \t0\r\n\n3\t4.5\t1\n")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := ds.X.(*mat.Dense).RawMatrix().Data
	if !slices.Equal(got, []float64{1, 2, 3, 4.5}) || !slices.Equal(ds.Y, []int{0, 1}) || !slices.Equal(ds.Columns, []string{"a", "b c"}) {
		t.Errorf("X %v Y %v cols %q", got, ds.Y, ds.Columns)
	}
	for content, want := range map[string]string{
		"a\tb\n1\t\t\n":    "row 2: has 3 fields, the header has 2",
		"a\tb\n\t2\n":      `row 2, column 1: "a": empty cell`,
		"a\tb\n\"1\"\t2\n": `row 2, column 1: "a": "\"1\"" is not a number`,
	} {
		_, err := Load(writeFile(t, "e.tsv", []byte(content)), Options{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", content, err, want)
		}
	}
}

func TestARFF(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		x             []float64
		y, class      []int
		cols          []string
		notes         int
	}{
		{
			name:    "DAMI-style outlier yes/no",
			content: "% comment\n@RELATION r\n\n@ATTRIBUTE 'att 1' real\n@attribute att2 INTEGER\n@attribute 'outlier' {'no','yes'}\n@DATA\n1,2,'no'\n3,4,'yes'\n5,6,?\n",
			x:       []float64{1, 2, 3, 4, 5, 6}, y: []int{0, 1, -1}, cols: []string{"att 1", "att2"},
		},
		{
			name:    "reversed binary pair",
			content: "@relation r\n@attribute a numeric\n@attribute class {anomaly,normal}\n@data\n1,normal\n2,anomaly\n",
			x:       []float64{1, 2}, y: []int{0, 1}, cols: []string{"a"},
		},
		{
			name:    "multi-class keeps index",
			content: "@relation r\n@attribute a numeric\n@attribute kind {Standing,Running,Walking}\n@data\n1,Walking\n2,Standing\n",
			x:       []float64{1, 2}, class: []int{2, 0}, cols: []string{"a"},
		},
		{
			name:    "numeric label",
			content: "@relation r\n@attribute label numeric\n@attribute a numeric\n@data\n1,7\n0,8\n",
			x:       []float64{7, 8}, y: []int{1, 0}, cols: []string{"a"},
		},
		{
			name:    "DAMI row identifier",
			content: "@RELATION 'Wilt_withoutdupl_05_v01'\n@ATTRIBUTE 'att1' REAL\n@ATTRIBUTE 'id' REAL\n@ATTRIBUTE 'outlier' {'no','yes'}\n@DATA\n0.5,1,'no'\n0.7,2,'yes'\n",
			x:       []float64{0.5, 0.7}, y: []int{0, 1}, cols: []string{"att1"}, notes: 1,
		},
		{
			name:    "sparse rows, comments after values",
			content: "@relation 'r %1'\n@attribute a numeric % the first\n@attribute 'b %' numeric\n@attribute class {no,yes}\n@data\n{0 1.5, 2 yes}\n{1 2}\n{ }\n% a comment line\n1,2,no % a comment\n{0 -3, 1 '4', 2 'no'}\n",
			x:       []float64{1.5, 0, 0, 2, 0, 0, 1, 2, -3, 4}, y: []int{1, 0, 0, 0, 0}, cols: []string{"a", "b %"},
		},
		{
			name:    "unlabeled",
			content: "@relation r\n@attribute a numeric\n@attribute b numeric\n@data\n1,2\n",
			x:       []float64{1, 2}, cols: []string{"a", "b"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds, err := Load(writeFile(t, "d.arff", []byte(tc.content)), Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := ds.X.(*mat.Dense).RawMatrix().Data
			if !slices.Equal(got, tc.x) || !slices.Equal(ds.Y, tc.y) || !slices.Equal(ds.Class, tc.class) || !slices.Equal(ds.Columns, tc.cols) || len(ds.Notes) != tc.notes {
				t.Errorf("X %v Y %v Class %v cols %q notes %q", got, ds.Y, ds.Class, ds.Columns, ds.Notes)
			}
		})
	}
}

// TestLIBSVMRoundTrip writes a dense data set as LIBSVM and reads it back as
// CSR: the same values bit for bit and the same labels.
func TestLIBSVMRoundTrip(t *testing.T) {
	ds := GaussianMixture(200, 4, 0.1, rand.NewPCG(5, 5))
	X := ds.X.(*mat.Dense)
	for i := 0; i < 200; i += 3 { // some zeros to omit
		X.Set(i, i%4, 0)
	}
	var b bytes.Buffer
	if err := WriteLIBSVM(&b, X, ds.Y); err != nil {
		t.Fatal(err)
	}
	back, err := Read(bytes.NewReader(b.Bytes()), int64(b.Len()), "rt.svm", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := back.X.(*sparse.CSR); !ok || !mat.Equal(back.X, X) || !slices.Equal(back.Y, ds.Y) {
		t.Error("LIBSVM round trip changed the data")
	}
	var b2 bytes.Buffer
	WriteLIBSVM(&b2, back.X, back.Y)
	if !bytes.Equal(b.Bytes(), b2.Bytes()) {
		t.Error("writing the CSR copy gives another file")
	}
}

func TestNormalClass(t *testing.T) {
	ds := &Dataset{X: mat.NewDense(4, 1, nil), Class: []int{2, 0, 2, -1}}
	got, err := NormalClass(ds, 2)
	if err != nil || !slices.Equal(got.Y, []int{0, 1, 0, -1}) {
		t.Errorf("NormalClass: %v %v", got, err)
	}
	if _, err := NormalClass(ds, 7); err == nil {
		t.Error("absent class: want an error")
	}
	if _, err := NormalClass(&Dataset{X: ds.X}, 0); err == nil {
		t.Error("no classes: want an error")
	}
}

// TestLoadNamedPipe reads a named pipe, which has no size to read at, as a
// stream by its extension (gzip data recognised): it was 'empty file'.
func TestLoadNamedPipe(t *testing.T) {
	for _, name := range []string{"p.csv", "p.csv.gz"} {
		fifo := filepath.Join(t.TempDir(), name)
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("no named pipes here: %v", err)
		}
		content := []byte("a,b\n1,2\n3,4\n")
		if strings.HasSuffix(name, ".gz") {
			var b bytes.Buffer
			w := gzip.NewWriter(&b)
			w.Write(content)
			w.Close()
			content = b.Bytes()
		}
		go func() {
			f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err == nil {
				f.Write(content)
				f.Close()
			}
		}()
		ds, err := Load(fifo, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := ds.X.(*mat.Dense).RawMatrix().Data; !slices.Equal(got, []float64{1, 2, 3, 4}) {
			t.Errorf("%s: X %v", name, got)
		}
	}
}
