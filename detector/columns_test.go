package detector_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
)

// modelMagic is a model file's first line.
const modelMagic = "ANOMALY-MODEL\n"

// columnsOf is the names of the columns d was fitted on.
func columnsOf(d detector.Detector) []string {
	desc, _ := detector.Describe(d)
	return desc.Columns
}

// saveLoad saves d and loads it back.
func saveLoad(t *testing.T, d detector.Detector) (detector.Detector, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := detector.Save(&buf, d); err != nil {
		t.Fatal(err)
	}
	l, err := detector.Load(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return l, buf.Bytes()
}

// TestColumnsSavedAndChecked: the names given to SetColumns come back from
// Load, and CheckColumns refuses data whose names differ, as
// scikit-learn's predict does after a fit on a DataFrame.
func TestColumnsSavedAndChecked(t *testing.T) {
	d, X := fitted(t)
	if columnsOf(d) != nil {
		t.Fatalf("a fit recorded names %q", columnsOf(d))
	}
	if err := detector.SetColumns(d, []string{"a"}); err == nil {
		t.Error("one name for two columns accepted")
	}
	if err := detector.SetColumns(d, []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	l, _ := saveLoad(t, d)
	if got := columnsOf(l); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("loaded names %q", got)
	}
	a, _ := d.Score(nil, X)
	b, _ := l.Score(nil, X)
	if !slices.Equal(a, b) {
		t.Fatal("scores differ after load")
	}
	for _, tc := range []struct {
		names []string
		want  string // "" for no error
	}{
		{[]string{"a", "b"}, ""},
		{nil, ""}, // data without names: no check
		{[]string{"b", "a"}, `the columns are the model's in another order: column 1 is "b" but the model was fitted on "a" (columns a, b); give the columns in the fit's order`},
		{[]string{"a", "x"}, `column 2 is "x" but the model was fitted on "b" (columns a, b): give the columns in the fit's order and names`},
		{[]string{"a", "b", "c"}, `wrong feature count: data has 3 columns (a, b, c), the model was fitted on 2 (a, b): column 3, "c", is not one the model was fitted on`},
		{[]string{"a"}, `wrong feature count: data has 1 column (a), the model was fitted on 2 (a, b): the model's column 2, "b", is missing`},
		{[]string{"b"}, `wrong feature count: data has 1 column (b), the model was fitted on 2 (a, b): column 1 is "b" but the model was fitted on "a"`},
		{[]string{"A", "b"}, `column 1 is "A" but the model was fitted on "a" (columns a, b): give the columns in the fit's order and names`},
	} {
		err := detector.CheckColumns(l, tc.names)
		if got := fmt.Sprint(err); (tc.want == "" && err != nil) || (tc.want != "" && got != tc.want) {
			t.Errorf("%q: got %v\nwant %s", tc.names, err, tc.want)
		}
	}
	var ce *detector.ColumnsError
	if err := detector.CheckColumns(l, []string{"b", "a"}); !errors.As(err, &ce) || !ce.Reordered || ce.Index != 0 {
		t.Errorf("reordered: %#v", err)
	}
	// A model without names checks nothing.
	e, _ := fitted(t)
	if err := detector.CheckColumns(e, []string{"x", "y"}); err != nil {
		t.Errorf("model without names: %v", err)
	}
	// A new fit forgets the names of the old data.
	if err := l.Fit(context.Background(), X); err != nil {
		t.Fatal(err)
	}
	if columnsOf(l) != nil {
		t.Errorf("names %q kept by a refit", columnsOf(l))
	}
}

// TestColumnsUnnamedHeaderUnchanged: a model without names is written with
// the header of the build before names were kept (no "columns" key), so
// that build reads it; one with names only adds the optional key.
func TestColumnsUnnamedHeaderUnchanged(t *testing.T) {
	d, _ := fitted(t)
	_, b := saveLoad(t, d)
	const want = `{"format":2,"method":"test-meandist","version":3,"params":{"contamination":"0.25","sample":"0","sample_seed":"0","scale":"standard"}}`
	if h := envelopeHeader(b); h != want {
		t.Errorf("header %s, want %s", h, want)
	}
	detector.SetColumns(d, []string{"a", "b"})
	_, b = saveLoad(t, d)
	if h := envelopeHeader(b); h != strings.TrimSuffix(want, "}")+`,"columns":["a","b"]}` {
		t.Errorf("header with names %s", h)
	}
}

func envelopeHeader(b []byte) string {
	b = b[len(modelMagic):]
	n := binary.LittleEndian.Uint32(b)
	return string(b[4 : 4+n])
}

// withHeader returns the envelope b with its JSON header replaced by h and
// the checksum recomputed.
func withHeader(b []byte, h string) []byte {
	rest := b[len(modelMagic):]
	n := binary.LittleEndian.Uint32(rest)
	out := append([]byte(modelMagic), binary.LittleEndian.AppendUint32(nil, uint32(len(h)))...)
	out = append(out, h...)
	out = append(out, rest[4+n:len(rest)-4]...)
	return binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(out))
}

// TestColumnsHeaderChecked: names in a header are one per column and
// strings; escapes and non-ASCII names decode as encoding/json does.
func TestColumnsHeaderChecked(t *testing.T) {
	d, _ := fitted(t)
	_, b := saveLoad(t, d)
	base := envelopeHeader(b)
	for _, tc := range []struct{ cols, want string }{
		{`["a"]`, "the header names 1 columns, the model has 2"},
		{`["a",1]`, "unreadable header"},
		{`"ab"`, "unreadable header"},
		{`[["a"],"b"]`, "unreadable header"},
		{`[ "a\"q" , "\u00e9\n" ]`, ""},
		{`["é", "tab\t"]`, ""},
		{`[]`, ""},
		{`null`, ""},
	} {
		h := strings.TrimSuffix(base, "}") + `,"columns":` + tc.cols + "}"
		l, err := detector.Load(bytes.NewReader(withHeader(b, h)))
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.cols, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.cols, err, tc.want)
		}
		_ = l
	}
	l, err := detector.Load(bytes.NewReader(withHeader(b, strings.TrimSuffix(base, "}")+`,"columns":[ "a\"q" , "\u00e9\n" ]}`)))
	if err != nil || !slices.Equal(columnsOf(l), []string{"a\"q", "é\n"}) {
		t.Errorf("escaped names: %q %v", columnsOf(l), err)
	}
}

// TestColumnsInvalidUTF8: a name that is not valid UTF-8 (a Latin-1
// header) is stored as encoding/json writes it, with U+FFFD, and the same
// file's names still match the model's.
func TestColumnsInvalidUTF8(t *testing.T) {
	d, _ := fitted(t)
	names := []string{"temp\xe9", "b"}
	if err := detector.SetColumns(d, names); err != nil {
		t.Fatal(err)
	}
	l, _ := saveLoad(t, d)
	if err := detector.CheckColumns(l, names); err != nil {
		t.Errorf("the fit's own names refused: %v", err)
	}
	if got := columnsOf(l); got[0] != "temp\ufffd" {
		t.Errorf("stored %q", got[0])
	}
}

// TestColumnsLoadMemory: the names of a wide model load within the load
// budget's 4× the file's size (cmd/anomaly/internal/cli's modelLoadFactor), also when
// they are the bulk of the file (scale none, one-letter names: the worst
// case). encoding/json's own []string decoding allocated 9.0× the file
// (108 MB for a model of 10⁶ columns), columnNames 3.3×.
func TestColumnsLoadMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations are counted without -race (make test-memory)")
	}
	const d = 200_000
	X := mat.NewDense(2, d, nil)
	for j := range d {
		X.Set(1, j, 1)
	}
	m, err := detector.New("test-meandist", map[string]string{"scale": "none"})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Fit(context.Background(), X); err != nil {
		t.Fatal(err)
	}
	names := make([]string, d)
	for j := range names {
		names[j] = "x"
	}
	if err := detector.SetColumns(m, names); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := detector.Save(&buf, m); err != nil {
		t.Fatal(err)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	l, err := detector.Load(bytes.NewReader(buf.Bytes()))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(columnsOf(l)) != d {
		t.Fatalf("%d names loaded", len(columnsOf(l)))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; float64(alloc) > 4*float64(buf.Len()) {
		t.Errorf("loading a %d-byte model allocated %d bytes (%.1f×), over 4×", buf.Len(), alloc, float64(alloc)/float64(buf.Len()))
	}
}

// TestColumnsTooLong: names beyond what a header holds are refused by
// SetColumns, so Save never writes a header Load refuses.
func TestColumnsTooLong(t *testing.T) {
	const d = 2
	X := mat.NewDense(2, d, []float64{0, 1, 1, 0})
	m, _ := detector.New("test-meandist", nil)
	if err := m.Fit(context.Background(), X); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("n", detector.MaxColumnsJSON/2)
	if err := detector.SetColumns(m, []string{long, long}); !errors.Is(err, detector.ErrColumnsTooLong) {
		t.Fatalf("got %v", err)
	}
	if columnsOf(m) != nil {
		t.Error("names kept")
	}
}
