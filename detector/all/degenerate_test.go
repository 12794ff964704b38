package all_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/testmat"
	"gonum.org/v1/gonum/mat"
)

// TestNarrowWidthWarns: at gamma = 1000 on 200 standardised Gaussian rows
// of 3 columns, γ times the squared distance from a row to its nearest
// neighbour has a median above 100, far above ln 2⁵² ≈ 36: every off-diagonal kernel value is 0 to rounding and the
// model scores alike every row it has not seen. ocsvm and svdd scored the
// training rows with solver noise (3 distinct values, 6 rows flagged),
// kpca and expose with noise too, and none of them warned. At the default
// width rule they do not warn.
func TestNarrowWidthWarns(t *testing.T) {
	X := testmat.NormalSeed(200, 3, 7)
	for _, m := range []string{"ocsvm", "svdd", "kpca", "expose", "r1svm"} {
		for _, c := range []struct {
			gamma string
			warn  bool
		}{{"1000", true}, {"", false}} {
			p := map[string]string{}
			if c.gamma != "" {
				p["gamma"] = c.gamma
			}
			d, err := detector.New(m, p)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Fit(context.Background(), X); err != nil {
				t.Fatalf("%s %v: %v", m, p, err)
			}
			w := d.(interface{ Warning() string }).Warning()
			if got := strings.Contains(w, "each row resembles only itself"); got != c.warn {
				t.Errorf("%s %v: warning %q, want the narrow-width one: %v", m, p, w, c.warn)
			}
		}
	}
}

// TestIterationLimitWarns: max_iter=1 (ocsvm, svdd, 1stm) and max_pass=1
// (r1svm, r1stm) stop the solver after one step, far from its tolerance;
// the fit said nothing (svm-train prints a warning). Now it warns; at the
// defaults it does not.
func TestIterationLimitWarns(t *testing.T) {
	X := testmat.NormalSeed(100, 6, 3)
	for _, c := range []struct{ method, limit string }{
		{"ocsvm", "max_iter"}, {"svdd", "max_iter"}, {"1stm", "max_iter"},
		{"r1svm", "max_pass"}, {"r1stm", "max_pass"},
	} {
		for _, at := range []string{"1", ""} {
			p := map[string]string{}
			if c.method == "1stm" || c.method == "r1stm" {
				p["shape"] = "2x3"
			}
			if at != "" {
				p[c.limit] = at
			}
			d, err := detector.New(c.method, p)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Fit(context.Background(), X); err != nil {
				t.Fatalf("%s %v: %v", c.method, p, err)
			}
			w := d.(interface{ Warning() string }).Warning()
			if got := strings.Contains(w, "not converged"); got != (at != "") {
				t.Errorf("%s %v: warning %q, want the iteration-limit one: %v", c.method, p, w, at != "")
			}
		}
	}
}

// TestTiedMajorityWarns: when more training scores tie than the
// 1 − contamination share the threshold leaves unflagged, the model tells
// apart only the rows outside the tie. 59 copies of one row and one other
// (kde, ocsvm) warn "59 of the 60"; half the rows copies (30 of 60, below
// 0.9·60 = 54) do not.
func TestTiedMajorityWarns(t *testing.T) {
	for _, copies := range []int{59, 30} {
		X := testmat.NormalSeed(60, 3, 5)
		for i := 1; i < copies; i++ {
			X.SetRow(i, X.RawRowView(0))
		}
		for _, m := range []string{"kde", "ocsvm"} {
			d, err := detector.New(m, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Fit(context.Background(), X); err != nil {
				t.Fatal(err)
			}
			w := d.(interface{ Warning() string }).Warning()
			if got, want := strings.Contains(w, "59 of the 60 training scores are equal"), copies == 59; got != want {
				t.Errorf("%s, %d copies: warning %q, want the tie one: %v", m, copies, w, want)
			}
		}
	}
}

// TestTieWarningNamesWidthOnlyWhereThereIsOne: on constant data the
// all-equal warning of a method without a width (iforest, gauss) named
// "the kernel width or bandwidth" and advised choosing one; it now
// points at the data, while kde's still names its bandwidth.
func TestTieWarningNamesWidthOnlyWhereThereIsOne(t *testing.T) {
	X := mat.NewDense(30, 2, nil)
	for i := range 30 {
		X.SetRow(i, []float64{1, 2})
	}
	for _, tc := range []struct {
		method string
		width  bool
	}{{"kde", true}, {"iforest", false}, {"gauss", false}} {
		d, err := detector.New(tc.method, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Fit(context.Background(), X); err != nil {
			t.Fatal(err)
		}
		w := d.(interface{ Warning() string }).Warning()
		if !strings.Contains(w, "every training score is") {
			t.Fatalf("%s: warning %q, want the all-equal one", tc.method, w)
		}
		if got := strings.Contains(w, "width"); got != tc.width {
			t.Errorf("%s: warning %q names a width: %v, want %v", tc.method, w, got, tc.width)
		}
	}
}
