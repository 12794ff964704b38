package shareddata

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestDirIsBesideTheRepository(t *testing.T) {
	// This test runs in <repository>/internal/shareddata.
	want, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared", "data"))
	got, _ := filepath.Abs(Dir())
	if got != want {
		t.Fatalf("Dir() = %s, want %s", got, want)
	}
}

// TestSkipsWhenAbsent: each helper that reaches for an absent file skips
// the test rather than failing it.
func TestSkipsWhenAbsent(t *testing.T) {
	for name, reach := range map[string]func(testing.TB){
		"Path":         func(tb testing.TB) { Path(tb, "no/such/file.npz") },
		"ADBench":      func(tb testing.TB) { ADBench(tb, "no_such_set") },
		"ADBenchSplit": func(tb testing.TB) { ADBenchSplit(tb, "no_such_set", 1) },
	} {
		if !t.Run(name, func(t *testing.T) {
			reach(t)
			t.Fatalf("%s did not skip", name)
		}) {
			t.Errorf("%s: the subtest failed instead of skipping", name)
		}
	}
}

func TestAbsentFile(t *testing.T) {
	if Has("no/such/file.npz") {
		t.Error("Has reports a file that does not exist")
	}
	if _, _, err := LoadADBenchSplit("no_such_set", 1); err == nil {
		t.Error("LoadADBenchSplit of an absent file: no error")
	}
}

// rowSum scores a row by the sum of its entries, a detector good enough to
// give some AUC on any data set.
type rowSum struct{}

func (rowSum) Fit(context.Context, mat.Matrix) error { return nil }
func (rowSum) Threshold() float64                    { return 0 }
func (rowSum) Score(dst []float64, X mat.Matrix) ([]float64, error) {
	n, d := X.Dims()
	dst = dst[:0]
	for i := 0; i < n; i++ {
		var s float64
		for j := 0; j < d; j++ {
			s += X.At(i, j)
		}
		dst = append(dst, s)
	}
	return dst, nil
}

// errorRecorder keeps the messages of Errorf instead of failing, so that a
// test can check that ADBenchAnchors fails off its anchor.
type errorRecorder struct {
	testing.TB
	errs []string
}

func (r *errorRecorder) Helper()             {}
func (r *errorRecorder) Logf(string, ...any) {}
func (r *errorRecorder) Errorf(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
}

// ADBenchAnchors fails a data set whose median is off its anchor by more
// than the tolerance, and only reports an exempt one.
func TestADBenchAnchorsFailsOffAnchor(t *testing.T) {
	Path(t, "adbench/4_breastw.npz")
	newDet := func(uint64) Detector { return rowSum{} }
	first := ADBenchAnchors(&errorRecorder{TB: t}, map[string]float64{"4_breastw": 0.5}, 1, nil, newDet)
	med := first["4_breastw"]
	if med <= 0 || med > 1 {
		t.Fatalf("median AUC %v", med)
	}
	r := &errorRecorder{TB: t}
	ADBenchAnchors(r, map[string]float64{"4_breastw": med - 0.02}, 0.01, nil, newDet)
	if len(r.errs) != 1 {
		t.Errorf("anchor 0.02 below the median, tolerance 0.01: %d errors %q, want 1", len(r.errs), r.errs)
	}
	r = &errorRecorder{TB: t}
	ADBenchAnchors(r, map[string]float64{"4_breastw": med - 0.02}, 0.01, []string{"4_breastw"}, newDet)
	if len(r.errs) != 0 {
		t.Errorf("exempt data set failed: %q", r.errs)
	}
}

// Dir names the shared data folder beside the repository; tests reach files
// in it through Path or ADBenchSplit, which skip when it is absent.
func ExampleDir() {
	fmt.Println(filepath.Base(filepath.Dir(Dir())), filepath.Base(Dir()))
	// Output: shared data
}

// TestReadTable reads a column of a Markdown table under its heading,
// leaves out cells that are not numbers and stops at the next heading.
func TestReadTable(t *testing.T) {
	const md = `# Results
## Median AUC-ROC

| dataset | a | b |
|---|---|---|
| 4_breastw | 0.955 | 0.996 |
| 6_cardio | failed | 0.954 |

## Median fit time (s)

| dataset | a | b |
|---|---|---|
| 4_breastw | 1.5 | 2.5 |
`
	got, err := readTable(strings.NewReader(md), "Median AUC-ROC", "b")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["4_breastw"] != 0.996 || got["6_cardio"] != 0.954 {
		t.Errorf("column b: %v", got)
	}
	if got, _ := readTable(strings.NewReader(md), "Median AUC-ROC", "a"); len(got) != 1 || got["4_breastw"] != 0.955 {
		t.Errorf("column a: %v", got)
	}
	if _, err := readTable(strings.NewReader(md), "Median AUC-ROC", "c"); err == nil {
		t.Error("column c: no error")
	}
	if _, err := readTable(strings.NewReader(md), "Median AP", "a"); err == nil {
		t.Error("missing section: no error")
	}
}

// TestMedianAUCs reads the shared RESULTS.md: the columns the anchor
// tests use hold all 15 ADBench sets.
func TestMedianAUCs(t *testing.T) {
	for _, c := range []string{"kde_scott", "kpca_recon", "iforest"} {
		m := MedianAUCs(t, c)
		if len(m) != 15 {
			t.Errorf("%s: %d data sets, want 15: %v", c, len(m), m)
		}
	}
	if m := MedianAUCs(t, "iforest"); m["4_breastw"] != 0.994 {
		t.Errorf("iforest 4_breastw %v, RESULTS.md says 0.994", m["4_breastw"])
	}
}
