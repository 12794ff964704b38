package dataset

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// sameRead checks that readCSV and the encoding/csv reference (refReadCSV)
// agree on data: the same values bit for bit, labels, columns and shape, or
// the same error (message, row, column, line).
func sameRead(t *testing.T, data []byte, opt Options) {
	t.Helper()
	got, gerr := readCSV(bytes.NewReader(data), int64(len(data)), "f.csv", opt)
	want, werr := refReadCSV(bytes.NewReader(data), "f.csv", opt)
	if sameErr(t, data, gerr, werr) {
		return
	}
	gx := got.X.(*mat.Dense)
	wx := want.X.(*mat.Dense)
	gr, gc := sameDims(t, data, gx, wx)
	for i := range gr {
		for j := range gc {
			if math.Float64bits(gx.At(i, j)) != math.Float64bits(wx.At(i, j)) {
				t.Fatalf("%q: X[%d,%d] = %v, reference %v", data, i, j, gx.At(i, j), wx.At(i, j))
			}
		}
	}
	if !reflect.DeepEqual(got.Y, want.Y) || !reflect.DeepEqual(got.Columns, want.Columns) || !reflect.DeepEqual(got.Shape, want.Shape) {
		t.Fatalf("%q: Y %v cols %q shape %v; reference %v %q %v", data, got.Y, got.Columns, got.Shape, want.Y, want.Columns, want.Shape)
	}
}

// csvCases are inputs at the edges of encoding/csv's rules.
var csvCases = []string{
	"a,b,label\n1,2,0\n3,4,1\n",
	",a,b\n0,1,2\n1,3,4\n",
	"a,b,\n1,2,\n3,4, \n",
	",a,\n0,1,\n",
	"a,,b\n1,2,3\n",
	"a,b,\n1,2,3\n",
	"\ufeff,a\n\"x\",1\n",
	",\n1,2\n",
	"\n",
	"a,b\r\n1,2\r\n\r\n3,4\r\n",
	"a,b\n1,2\r",
	"a,b\n1,2\r\r\n",
	"a,b\r1,2\n",
	"a\n1\n\r\n2\n",
	"a,b\n1,2\n   \n3,4\n",
	"a,b\n1,2\n , \n",
	"a\n \n",
	"a\n\n\n",
	"\n\na,b\n\n1,2",
	"\ufeffa,b\n1,2\n",
	"\ufeff\"a\",\"b,c\"\r\n1,2\r\n",
	"\"a\",\"b\"\n\"1\",\" 2 \"\n",
	"\"a\nb\",c\n1,2\n",
	"a,\"b\"\"c\"\n1,2\n",
	"a,b\n\"1\" ,2\n",
	"a,b\n \"1\",2\n",
	"a,b\n1,\"2\n",
	"a,b\n1,\"2\n3\"\n",
	"a,b\n1,2\"\n",
	"a,b\n1,\"2\"x\n",
	"a,b\n1,\"\"\n",
	"a,b\n\"\",1\n",
	"a,b\n1,\"2\"",
	"a,b\n1,\"2\"\r\n",
	"a,b\n1,\"2\r\n3\"\r\n",
	"a,b\n1,\"2\n\n\n",
	"a,b\n1,\"\n\"\n",
	"a\u00a0,\u2003b\n\u00851,2\u00a0\n",
	"a,b\n1,\xff\n",
	"a,\xffb\n1,2\n",
	"a,b\n\t1,\v2\f\n",
	"a,b\n1,2,\n",
	"a,b\n1\n",
	"a,label\n1,\n2, 1.0 \n3,-1\n",
	"a,label\n1,2\n",
	"y,a\nyes,1\n",
	"a,b\n1,nan\n",
	"a,b\n1,-Inf\n",
	"a,b\n1,1e999\n",
	"a,b\n1,0x1p-2\n",
	"a,b\n1,1_000\n",
	"a,b\n1,0.100000000000000000000000000000000000000001\n",
	"a,b\n1,\n",
	"1,2\n3,4\n",
	"label\n1\n",
	"label,y,a\n1,1,1\n",
	"",
	"\r\n",
	"\"",
	"a\n\"",
	"a\n1\n\"\n",
}

func TestCSVReference(t *testing.T) {
	for _, c := range csvCases {
		for _, opt := range []Options{{}, {Label: "b"}, {Shape: []int{2}}} {
			sameRead(t, []byte(c), opt)
		}
	}
	// Lines longer than the read buffer, quoted and not, and a file long
	// enough for the value buffer to grow several times.
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	const d = 30000
	for j := range d {
		if j > 0 {
			b.WriteByte(',')
		}
		b.WriteString("c" + strconv.Itoa(j))
	}
	b.WriteString("\n")
	for i := range 3 {
		for j := range d {
			if j > 0 {
				b.WriteByte(',')
			}
			v := strconv.FormatFloat(rng.NormFloat64(), 'g', -1, 64)
			if i == 1 && j%7 == 0 {
				v = `"` + v + `"`
			}
			b.WriteString(v)
		}
		b.WriteString("\r\n")
	}
	sameRead(t, []byte(b.String()), Options{})
	b.Reset()
	b.WriteString("x,label\n")
	for i := range 5000 {
		b.WriteString(strconv.FormatFloat(rng.NormFloat64(), 'g', -1, 64))
		if i%3 == 0 {
			b.WriteString(strings.Repeat(" ", i%50))
		}
		b.WriteString("," + strconv.Itoa(i%2) + "\n")
	}
	sameRead(t, []byte(b.String()), Options{})
}

// FuzzCSVReference compares readCSV with the encoding/csv reference on
// any input.
func FuzzCSVReference(f *testing.F) {
	for _, c := range csvCases {
		f.Add([]byte(c), "")
	}
	f.Add([]byte("t,a\n1,2\n"), "t")
	f.Fuzz(func(t *testing.T, data []byte, label string) {
		sameRead(t, data, Options{Label: label})
	})
}

// TestCSVNoAllocPerField checks that reading does not allocate per row or
// per field: the allocations of a 2,000-row file are those of a 20-row
// one plus the few buffers that grow with it.
func TestCSVNoAllocPerField(t *testing.T) {
	file := func(n int) []byte {
		var b bytes.Buffer
		b.WriteString("a,b,c,label\n")
		for i := range n {
			b.WriteString("0.5, -1.25e-3,123456.789012345678,")
			b.WriteString(strconv.Itoa(i % 2))
			b.WriteString("\n")
		}
		return b.Bytes()
	}
	count := func(data []byte) float64 {
		return testing.AllocsPerRun(5, func() {
			if _, err := readCSV(bytes.NewReader(data), int64(len(data)), "f.csv", Options{}); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, big := count(file(20)), count(file(2000))
	// The label slice grows by append (about log2(2000/20) more times)
	// and the value buffer once or twice more.
	t.Logf("allocations: %v for 20 rows, %v for 2,000", small, big)
	if big > small+12 {
		t.Errorf("%v allocations for 2,000 rows, %v for 20: some allocation is per row", big, small)
	}
}

// TestLongRecordBounded: one line (or one quoted field over several lines)
// longer than a quarter of the memory budget is refused as it is read,
// naming its row, instead of growing without bound (a 4 GiB line of a
// 4 MB .csv.gz ran the process out of memory under a 200 MB budget).
func TestLongRecordBounded(t *testing.T) {
	long := strings.Repeat("1", 600<<10)
	opt := Options{MaxBytes: 1 << 20} // a 256 KiB record limit
	for _, tc := range []struct{ name, file string }{
		{"t.csv", "a,b\n1,2\n" + long + ",2\n"},
		{"t.tsv", "a\tb\n1\t2\n" + long + "\t2\n"},
		{"q.csv", "a,b\n1,2\n\"" + strings.Repeat("1\n", 300<<10) + "\",2\n"},
		{"h.csv", long + ",b\n1,2\n"},
	} {
		_, err := Read(strings.NewReader(tc.file), int64(len(tc.file)), tc.name, opt)
		var me *MemoryError
		var de *Error
		if !errors.As(err, &me) || !errors.As(err, &de) || de.Row == 0 {
			t.Errorf("%s: error %v, want a *MemoryError at a row", tc.name, err)
		}
		// Without a budget the record is read (and its cell then
		// refused as a number, not for its length).
		if _, err := Read(strings.NewReader(tc.file), int64(len(tc.file)), tc.name, Options{}); err != nil && strings.Contains(err.Error(), "longer than") {
			t.Errorf("%s without a budget: %v", tc.name, err)
		}
	}
}

// TestManyFieldsBounded: a data row with more fields than the header is
// refused before its fields are sliced (12 million empty fields of a 24 MB
// line took 750 MB in slices), and a header with more columns than the
// budget's share is refused; quoted records too.
func TestManyFieldsBounded(t *testing.T) {
	opt := Options{MaxBytes: 1 << 20} // header columns: at most 2621
	for _, tc := range []struct{ file, want string }{
		{"a,b\n1,2\n" + strings.Repeat(",", 100000) + "\n", "row 3: has 100001 fields, the header has 2"},
		{"a,b\n1,2\n\"1\"" + strings.Repeat(",", 100000) + "\n", "row 3: has more than 2 fields, the header has 2"},
		{strings.Repeat("c,", 5000) + "y\n", "row 1: the header has more than 2621 columns"},
	} {
		_, err := Read(strings.NewReader(tc.file), int64(len(tc.file)), "m.csv", opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

// TestBOM: a UTF-8 byte order mark at the start of a text file (Excel,
// R's fileEncoding = "UTF-8-BOM") is skipped by every text reader; before a
// quoted CSV header it made the first quote a bare one.
func TestBOM(t *testing.T) {
	for _, tc := range []struct{ name, file string }{
		{"q.csv", "\ufeff\"a\",\"b\"\n1,2\n3,4\n"},
		{"u.tsv", "\ufeffa\tb\n1\t2\n3\t4\n"},
		{"s.svm", "\ufeff0 1:1 2:2\n0 1:3 2:4\n"},
		{"a.arff", "\ufeff@relation r\n@attribute a numeric\n@attribute b numeric\n@data\n1,2\n3,4\n"},
	} {
		ds, err := Read(strings.NewReader(tc.file), int64(len(tc.file)), tc.name, Options{})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if r, c := ds.X.Dims(); r != 2 || c != 2 || ds.X.At(1, 0) != 3 {
			t.Errorf("%s: %d × %d, X[1][0] = %v", tc.name, r, c, ds.X.At(1, 0))
		}
	}
}

// TestLongLineBounded: LIBSVM and ARFF lines are bounded by the same share
// of the memory budget as CSV records (a 60 MB comment line was read whole
// under a 4 MB budget, their fixed limit being 64 MiB).
func TestLongLineBounded(t *testing.T) {
	long := strings.Repeat("c", 600<<10)
	opt := Options{MaxBytes: 1 << 20}
	for _, tc := range []struct{ name, file string }{
		{"l.svm", "0 1:1 2:2 #" + long + "\n0 1:2\n"},
		{"l.arff", "@relation r\n@attribute a numeric\n% " + long + "\n@data\n1\n"},
	} {
		_, err := Read(strings.NewReader(tc.file), int64(len(tc.file)), tc.name, opt)
		var me *MemoryError
		var de *Error
		if !errors.As(err, &me) || !errors.As(err, &de) || de.Line == 0 {
			t.Errorf("%s: error %v, want a *MemoryError at a line", tc.name, err)
		}
		if _, err := Read(strings.NewReader(tc.file), int64(len(tc.file)), tc.name, Options{}); err != nil {
			t.Errorf("%s without a budget: %v", tc.name, err)
		}
	}
}

// Labels that are only 1 and −1 with the 1s a majority follow the
// one-class sign convention (+1 normal, −1 anomaly) with a note, in CSV
// and .npz alike: read as 1 = anomaly they would make most rows
// anomalies. With the 1s a minority (or absent) they keep this package's
// meaning: labelled anomalies among unlabeled rows.
func TestSignLabels(t *testing.T) {
	csv := func(labels ...string) []byte {
		s := "a,label\n"
		for i, l := range labels {
			s += strconv.Itoa(i) + "," + l + "\n"
		}
		return []byte(s)
	}
	npz := func(labels ...float64) []byte {
		x := make([]float64, len(labels))
		return npzBytes(map[string][]byte{
			"X.npy": npyBytes("<f8", false, []int{len(labels), 1}, x),
			"y.npy": npyBytes("<i8", false, []int{len(labels)}, labels),
		}, "X.npy", "y.npy")
	}
	for _, c := range []struct {
		name string
		file []byte
		want []int
		note bool
	}{
		{"a.csv", csv("1", "1", "-1", "1"), []int{0, 0, 1, 0}, true},
		{"a.csv", csv("+1", "-1", "+1"), []int{0, 1, 0}, true},
		{"a.csv", csv("1", "-1", "-1", "-1"), []int{1, -1, -1, -1}, false}, // labelled anomalies, unlabeled rows
		{"a.csv", csv("1", "-1"), []int{1, -1}, false},                     // half: not a majority
		{"a.csv", csv("1", "1", "0", "-1"), []int{1, 1, 0, -1}, false},     // a 0: this package's labels
		{"a.csv", csv("1", "1"), []int{1, 1}, false},
		{"a.npz", npz(1, 1, -1), []int{0, 0, 1}, true},
		{"a.npz", npz(1, -1, -1), []int{1, -1, -1}, false},
	} {
		ds, err := Read(bytes.NewReader(c.file), int64(len(c.file)), c.name, Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		noted := slices.ContainsFunc(ds.Notes, func(n string) bool { return strings.Contains(n, "one-class convention") })
		if !slices.Equal(ds.Y, c.want) || noted != c.note {
			t.Errorf("%s %q: Y %v note %v (%q), want %v note %v", c.name, c.file, ds.Y, noted, ds.Notes, c.want, c.note)
		}
	}
}

// A column named y (or label) is a feature, not the labels, when the
// model's feature names include it (Options.FeatureNames); a label column
// beside it is still found, and a label named by Options.Label wins.
func TestFeatureNamesKeepY(t *testing.T) {
	read := func(content string, opt Options) *Dataset {
		t.Helper()
		ds, err := Read(strings.NewReader(content), int64(len(content)), "a.csv", opt)
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}
	xy := "x,y\n1,0\n5,1\n"
	if ds := read(xy, Options{}); ds.Y == nil || !slices.Equal(ds.Columns, []string{"x"}) {
		t.Errorf("no feature names: Y %v columns %v, want y as the labels", ds.Y, ds.Columns)
	}
	if ds := read(xy, Options{FeatureNames: []string{"x", "Y"}}); ds.Y != nil || !slices.Equal(ds.Columns, []string{"x", "y"}) {
		t.Errorf("model's features x, y: Y %v columns %v, want y a feature", ds.Y, ds.Columns)
	}
	if ds := read("x,y,label\n1,0,0\n5,1,1\n", Options{FeatureNames: []string{"x", "y"}}); !slices.Equal(ds.Y, []int{0, 1}) || !slices.Equal(ds.Columns, []string{"x", "y"}) {
		t.Errorf("label beside x, y: Y %v columns %v", ds.Y, ds.Columns)
	}
	if ds := read(xy, Options{FeatureNames: []string{"x", "y"}, Label: "y"}); ds.Y == nil {
		t.Error("Label y: y not taken as the labels")
	}
}
