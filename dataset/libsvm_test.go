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

	"github.com/james-bowman/sparse"
	"github.com/kernelad/anomaly/internal/csr"
)

// sameLIBSVM checks that readLIBSVM and the bufio.Scanner/strings.Fields
// reference (refReadLIBSVM) agree on data: the same matrix bit for bit and
// the same labels, or the same error.
func sameLIBSVM(t *testing.T, data []byte) {
	t.Helper()
	got, gerr := readLIBSVM(bytes.NewReader(data), "f.svm", Options{}, -1)
	want, werr := refReadLIBSVM(bytes.NewReader(data), "f.svm", Options{})
	if sameErr(t, data, gerr, werr) {
		return
	}
	g, w := got.X.(*sparse.CSR), want.X.(*sparse.CSR)
	gr, _ := sameDims(t, data, g, w)
	for i := range gr {
		gi, gv := csr.Row(g, i)
		wi, wv := csr.Row(w, i)
		if !reflect.DeepEqual(gi, wi) || len(gv) != len(wv) {
			t.Fatalf("%q: row %d indices %v, reference %v", data, i, gi, wi)
		}
		for k := range gv {
			if math.Float64bits(gv[k]) != math.Float64bits(wv[k]) {
				t.Fatalf("%q: row %d values %v, reference %v", data, i, gv, wv)
			}
		}
	}
	if !reflect.DeepEqual(got.Y, want.Y) || !reflect.DeepEqual(got.Class, want.Class) {
		t.Fatalf("%q: Y %v Class %v; reference %v %v", data, got.Y, got.Class, want.Y, want.Class)
	}
}

var libsvmCases = []string{
	"1 1:0.5 3:2\n0 2:-1\n",
	"+1 qid:3 1:1 # c\n-1 2:1e-3\n",
	"3 1:1\n2 2147483647:1\n",
	"1 2:1 2:3\n",
	"",
	"\n\n",
	"1 1:2",
	"1 1:2\r\n0 2:3\r\n",
	"1 1:2\r",
	"1\t1:2\v3:4\f\n",
	"1\u00a01:2\u20033:4\n",
	"1\u00851:2\n",
	"1\xa01:2\n",
	"1 1:\xff\n",
	"1 +2:3 0003:1\n",
	"1 -1:3\n",
	"1 2147483648:1\n",
	"1 99999999999999999999:1\n",
	"1 1_0:1\n",
	"1 :1\n",
	"1 1:\n",
	"1 1:1e999\n",
	"1 1:-inf\n",
	"1 1:NaN\n",
	"1 1:0x1p-2\n",
	"1 qid:1 qid:2 1:1\n",
	"1 1:1 qid:2\n",
	"1 qid:x\n",
	"1:2 3:4\n",
	"x 1:2\n",
	"1.5 1:2\n",
	"1e0 1:2\n",
	"4294967296 1:2\n",
	"-2147483648 1:1\n",
	"nan 1:1\n",
	"# only a comment\n",
	"1 1:2 # 3:4\n0 #\n",
	"#\n1 1:2\n",
	"1 1:0 2:0\n",
	"1\n0\n",
	"1 3\n",
	"1 1:2 1:3\n",
	"1 2:1 1:3\n",
	"  1   1:2   \n",
	"\r\n1 1:1\n",
}

func TestLIBSVMReference(t *testing.T) {
	for _, c := range libsvmCases {
		sameLIBSVM(t, []byte(c))
	}
	// A line longer than the read buffer, and many lines.
	rng := rand.New(rand.NewPCG(3, 3))
	var b strings.Builder
	b.WriteString("1")
	for j := range 30000 {
		b.WriteString(" " + strconv.Itoa(j+1) + ":" + strconv.FormatFloat(rng.NormFloat64(), 'g', -1, 64))
	}
	b.WriteString("\n")
	for i := range 3000 {
		b.WriteString(strconv.Itoa(i % 2))
		for j := range 20 {
			if rng.IntN(3) > 0 {
				b.WriteString(" " + strconv.Itoa(j+1) + ":" + strconv.FormatFloat(rng.NormFloat64(), 'g', -1, 64))
			}
		}
		b.WriteString("\n")
	}
	sameLIBSVM(t, []byte(b.String()))
}

// TestLIBSVMLongLine checks the line-length limit: a line of maxLineBytes
// bytes or more is an error naming its line.
func TestLIBSVMLongLine(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 128 MB")
	}
	data := []byte("1 1:1\n0 1:" + strings.Repeat("1", maxLineBytes) + "\n")
	for _, read := range []func(r *bytes.Reader) (*Dataset, error){
		func(r *bytes.Reader) (*Dataset, error) { return readLIBSVM(r, "f.svm", Options{}, -1) },
		func(r *bytes.Reader) (*Dataset, error) { return refReadLIBSVM(r, "f.svm", Options{}) },
	} {
		_, err := read(bytes.NewReader(data))
		var de *Error
		if !errors.As(err, &de) || de.Line != 2 || !strings.Contains(err.Error(), "line longer than") {
			t.Errorf("error %v, want line 2 too long", err)
		}
	}
}

func FuzzLIBSVMReference(f *testing.F) {
	for _, c := range libsvmCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameLIBSVM(t, data)
	})
}

// TestLIBSVMOneClassNote: labels read by LIBSVM's one-class convention
// (+1 normal, −1 anomaly, the opposite of 1 = anomaly) come with a note;
// 1/0 labels do not.
func TestLIBSVMOneClassNote(t *testing.T) {
	for _, tc := range []struct {
		file string
		y    []int
		note bool
	}{
		{"-1 1:1\n+1 1:2\n", []int{1, 0}, true},
		{"+1 1:1\n+1 1:2\n", []int{0, 0}, true},
		{"1 1:1\n0 1:2\n", []int{1, 0}, false},
	} {
		ds, err := Read(strings.NewReader(tc.file), int64(len(tc.file)), "n.svm", Options{})
		if err != nil {
			t.Fatal(err)
		}
		has := len(ds.Notes) == 1 && strings.Contains(ds.Notes[0], "LIBSVM's one-class convention")
		if !slices.Equal(ds.Y, tc.y) || has != tc.note {
			t.Errorf("%q: labels %v, notes %q; want %v, a note %v", tc.file, ds.Y, ds.Notes, tc.y, tc.note)
		}
	}
}
