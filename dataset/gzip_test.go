package dataset

import (
	"bytes"
	"compress/gzip"
	"slices"
	"strings"
	"syscall"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// TestGzip reads every format gzip may hold, plain and compressed, and
// compares the results; then the errors of a file that is not gzip, one
// cut short, and one whose inner format is not streamed.
func TestGzip(t *testing.T) {
	for name, content := range map[string][]byte{
		"d.csv":  []byte("a,b,label\n1,2,0\n3,4.5,1\n"),
		"d.arff": []byte("@relation r\n@attribute a numeric\n@attribute class {no,yes}\n@data\n1,no\n{0 2, 1 yes}\n"),
		"d.svm":  []byte("1 1:0.5 3:2\n0 2:1.5\n"),
		"d.npy":  npyBytes("<f8", true, []int{3, 2}, []float64{1, 2, 3, 4, 5, 6}),
	} {
		plain, err := Load(writeFile(t, name, content), Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Load(writeFile(t, name+".gz", gzipped(content)), Options{})
		if err != nil {
			t.Fatalf("%s.gz: %v", name, err)
		}
		if !mat.Equal(plain.X, got.X) || !slices.Equal(plain.Y, got.Y) || !slices.Equal(plain.Columns, got.Columns) {
			t.Errorf("%s.gz reads otherwise than %s", name, name)
		}
	}
	csv := gzipped([]byte("a,b\n" + strings.Repeat("1,2\n", 5000)))
	for _, tc := range []struct {
		name    string
		content []byte
		want    string
	}{
		{"plain.csv.gz", []byte("a,b\n1,2\n"), "not a gzip file"},
		{"cut.csv.gz", csv[:len(csv)/2], "the gzip stream ends early"},
		{"d.npz.gz", gzipped([]byte("x")), `a gzip file of unknown format ".npz"`},
		{"zipped.csv", gzipped([]byte("a,b\n1,2\n")), "the file is gzip-compressed: give it a .gz extension"},
	} {
		_, err := Load(writeFile(t, tc.name, tc.content), Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("%s: error %v, want one naming the file with %q", tc.name, err, tc.want)
		}
	}
	// A stream is recognised as gzip by its magic number, whatever the
	// format says.
	for _, format := range []string{".csv", ".csv.gz"} {
		ds, err := ReadStream(bytes.NewReader(gzipped([]byte("a,b\n1,2\n3,4\n"))), format, "stdin", Options{})
		if err != nil || ds.Rows() != 2 {
			t.Errorf("ReadStream of gzip data as %s: %v", format, err)
		}
	}
	if !Supported("x.CSV.gz") || Supported("x.gz") || Supported("x.npz.gz") || !Supported("x.npz") {
		t.Error("Supported disagrees with Load")
	}
}

// TestGzipMembers: members one after another are read on (as gzip -d and
// compress/gzip's multistream mode read them), zero padding after the last
// is ignored as gzip ignores it (it was "invalid header"), and other bytes
// after it are an error naming the file.
func TestGzipMembers(t *testing.T) {
	two := append(gzipped([]byte("a,b\n1,2\n")), gzipped([]byte("3,4\n"))...)
	for _, tc := range []struct {
		name    string
		content []byte
		rows    int
		want    string
	}{
		{"two.csv.gz", two, 2, ""},
		{"padded.csv.gz", append(append([]byte(nil), two...), make([]byte, 512)...), 2, ""},
		{"junk.csv.gz", append(append([]byte(nil), two...), 0, 0, 'x'), 0, "neither a gzip member nor zero padding"},
	} {
		ds, err := Load(writeFile(t, tc.name, tc.content), Options{})
		if tc.want != "" {
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.name) {
				t.Errorf("%s: error %v, want one naming the file with %q", tc.name, err, tc.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if r, _ := ds.X.Dims(); r != tc.rows || ds.X.At(1, 1) != 4 {
			t.Errorf("%s: %d rows, X[1][1] = %v", tc.name, r, ds.X.At(1, 1))
		}
	}
}

// TestStreamSniffed: .npy data on a stream are read as .npy whatever the
// format says (gzipped too), as gzip is recognised by its magic number;
// a zip archive says it needs a file.
func TestStreamSniffed(t *testing.T) {
	npy := npyBytes("<f8", false, []int{3, 2}, []float64{1, 2, 3, 4, 5, 6})
	for _, in := range [][]byte{npy, gzipped(npy)} {
		ds, err := ReadStream(bytes.NewReader(in), ".csv", "standard input", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if r, c := ds.X.Dims(); r != 3 || c != 2 || ds.X.At(2, 1) != 6 {
			t.Errorf("%d × %d, X[2][1] = %v", r, c, ds.X.At(2, 1))
		}
	}
	_, err := ReadStream(strings.NewReader("PK\x03\x04rest"), ".csv", "standard input", Options{})
	if err == nil || !strings.Contains(err.Error(), "needs random access") {
		t.Errorf("zip on a stream: %v", err)
	}
}

// A stream that cannot be read (standard input redirected from a
// directory) is named as a read error in every format; the .npy reader
// took it for a short header.
func TestReadStreamReadError(t *testing.T) {
	for _, format := range []string{".npy", ".csv", ".libsvm"} {
		_, err := ReadStream(errReader{syscall.EISDIR}, format, "standard input", Options{})
		if err == nil || !strings.Contains(err.Error(), "cannot read: is a directory") {
			t.Errorf("%s: %v, want the read error", format, err)
		}
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }
