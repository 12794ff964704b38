package eval

import (
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/kernelad/anomaly/internal/testmat"
)

// goldenCase is one case of testdata/golden.json, written by
// testdata/make_golden.py with scikit-learn 1.2.1. Floats are strings so
// that "inf" survives JSON.
type goldenCase struct {
	Name          string   `json:"name"`
	Scores        []string `json:"scores"`
	Y             []int    `json:"y"`
	AUCROC        float64  `json:"auc_roc"`
	AP            float64  `json:"average_precision"`
	ROCFPR        []string `json:"roc_fpr"`
	ROCTPR        []string `json:"roc_tpr"`
	ROCThr        []string `json:"roc_thr"`
	PRPrecision   []string `json:"pr_precision"`
	PRRecall      []string `json:"pr_recall"`
	PRThr         []string `json:"pr_thr"`
	BestF1        float64  `json:"best_f1"`
	BestF1Thr     string   `json:"best_f1_thr"`
	PrecisionAtNs []struct {
		N     int     `json:"n"`
		Value float64 `json:"value"`
	} `json:"precision_at_n"`
}

func floats(t *testing.T, ss []string) []float64 {
	t.Helper()
	out := make([]float64, len(ss))
	for i, s := range ss {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("golden value %q: %v", s, err)
		}
		out[i] = v
	}
	return out
}

func loadGolden(t *testing.T) []goldenCase {
	t.Helper()
	var g struct{ Cases []goldenCase }
	testmat.ReadJSON(t, filepath.Join("testdata", "golden.json"), &g)
	if len(g.Cases) == 0 {
		t.Fatal("no golden cases")
	}
	return g.Cases
}

// tol is the agreement asked of scikit-learn's values: both sides compute
// the same sums in a different order.
const tol = 1e-12

func near(a, b float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= tol
}

func sameSlice(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d points, scikit-learn has %d", what, len(got), len(want))
		return
	}
	for i := range got {
		if !near(got[i], want[i]) {
			t.Errorf("%s[%d] = %v, scikit-learn %v", what, i, got[i], want[i])
			return
		}
	}
}

func TestGolden(t *testing.T) {
	for _, c := range loadGolden(t) {
		t.Run(c.Name, func(t *testing.T) {
			s := floats(t, c.Scores)
			if err := Check(s, c.Y); err != nil {
				t.Fatal(err)
			}
			if got := AUCROC(s, c.Y); !near(got, c.AUCROC) {
				t.Errorf("AUCROC = %.17g, scikit-learn roc_auc_score %.17g", got, c.AUCROC)
			}
			if got := AveragePrecision(s, c.Y); !near(got, c.AP) {
				t.Errorf("AveragePrecision = %.17g, scikit-learn average_precision_score %.17g", got, c.AP)
			}
			fpr, tpr, thr := ROC(s, c.Y)
			sameSlice(t, "ROC fpr", fpr, floats(t, c.ROCFPR))
			sameSlice(t, "ROC tpr", tpr, floats(t, c.ROCTPR))
			sameSlice(t, "ROC thr", thr, floats(t, c.ROCThr))
			p, r, pthr := PR(s, c.Y)
			sameSlice(t, "PR precision", p, floats(t, c.PRPrecision))
			sameSlice(t, "PR recall", r, floats(t, c.PRRecall))
			sameSlice(t, "PR thr", pthr, floats(t, c.PRThr))
			f1, f1t := BestF1(s, c.Y)
			if !near(f1, c.BestF1) || !near(f1t, floats(t, []string{c.BestF1Thr})[0]) {
				t.Errorf("BestF1 = %v at %v, want %v at %v", f1, f1t, c.BestF1, c.BestF1Thr)
			}
			for _, pn := range c.PrecisionAtNs {
				if got := PrecisionAtN(s, c.Y, pn.N); !near(got, pn.Value) {
					t.Errorf("PrecisionAtN(n=%d) = %.17g, want %.17g", pn.N, got, pn.Value)
				}
			}
		})
	}
}

// TestOrderInvariant checks that ties are grouped, not broken by row order:
// reversing the rows changes no metric.
func TestOrderInvariant(t *testing.T) {
	for _, c := range loadGolden(t) {
		s := floats(t, c.Scores)
		rs := make([]float64, len(s))
		ry := make([]int, len(s))
		for i := range s {
			rs[len(s)-1-i], ry[len(s)-1-i] = s[i], c.Y[i]
		}
		for _, m := range []struct {
			name string
			f    func([]float64, []int) float64
		}{
			{"AUCROC", AUCROC},
			{"AveragePrecision", AveragePrecision},
			{"PrecisionAtN", func(s []float64, y []int) float64 { return PrecisionAtN(s, y, 0) }},
		} {
			if a, b := m.f(s, c.Y), m.f(rs, ry); a != b {
				t.Errorf("%s %s: %v forward, %v reversed", c.Name, m.name, a, b)
			}
		}
	}
}

func TestInvalid(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name   string
		scores []float64
		y      []int
	}{
		{"empty", nil, nil},
		{"NaN score", []float64{0.1, nan, 0.3}, []int{0, 1, 1}},
		{"only anomalies", []float64{0.1, 0.2}, []int{1, 1}},
		{"only normal", []float64{0.1, 0.2}, []int{0, 0}},
		{"unlabeled row", []float64{0.1, 0.2, 0.3}, []int{0, -1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if Check(tc.scores, tc.y) == nil {
				t.Error("Check accepted invalid input")
			}
			for name, v := range map[string]float64{
				"AUCROC":           AUCROC(tc.scores, tc.y),
				"AveragePrecision": AveragePrecision(tc.scores, tc.y),
				"PrecisionAtN":     PrecisionAtN(tc.scores, tc.y, 1),
			} {
				if !math.IsNaN(v) {
					t.Errorf("%s = %v, want NaN", name, v)
				}
			}
			if f1, thr := BestF1(tc.scores, tc.y); !math.IsNaN(f1) || !math.IsNaN(thr) {
				t.Errorf("BestF1 = %v, %v; want NaN, NaN", f1, thr)
			}
			if a, b, c := ROC(tc.scores, tc.y); a != nil || b != nil || c != nil {
				t.Error("ROC returned points")
			}
			if a, b, c := PR(tc.scores, tc.y); a != nil || b != nil || c != nil {
				t.Error("PR returned points")
			}
		})
	}
}

func TestLengthMismatchPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Error("no panic on mismatched lengths")
		}
	}()
	AUCROC([]float64{1, 2}, []int{1})
}

func BenchmarkAUCROC(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		s := make([]float64, n)
		y := make([]int, n)
		for i := range s {
			s[i] = math.Sin(float64(i) * 12.9898)
			if i%10 == 0 {
				y[i] = 1
			}
		}
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				AUCROC(s, y)
			}
		})
	}
}
