package bench_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/kernelad/anomaly/bench"
)

// Compare on a hand-made result: on 5 data sets method a beats b and b
// beats c everywhere, so the average AUC ranks are 1, 2, 3 exactly and
// each Wilcoxon pair has W+ = 15 (all 5 differences positive, ranks
// 1…5), W− = 0, exact p = 2/2⁵ = 0.0625 (scipy.stats.wilcoxon gives the
// same). Method t, with no figure on the last data set (a tensor method
// on vector data), is dropped from every metric.
func TestCompare(t *testing.T) {
	res := &bench.Result{Methods: []string{"a", "b", "c", "t"}}
	data := []string{"d1", "d2", "d3", "d4", "d5"}
	for i, d := range data {
		for j, m := range []string{"a", "b", "c"} {
			auc := 0.9 - 0.1*float64(j) - 0.01*float64(i*j)
			res.Cells = append(res.Cells, bench.Cell{Data: d, Method: m, AUC: auc, AP: auc, FitSeconds: float64(j + 1), ScoreSeconds: 1, OK: 1})
		}
		if i < 4 {
			res.Cells = append(res.Cells, bench.Cell{Data: d, Method: "t", AUC: 1, AP: 1, FitSeconds: 1, ScoreSeconds: 1, OK: 1})
		}
	}
	cmps := bench.Compare(res)
	if len(cmps) != len(bench.Metrics) {
		t.Fatalf("%d comparisons, want %d", len(cmps), len(bench.Metrics))
	}
	auc := cmps[0]
	if auc.Err != "" || strings.Join(auc.Methods, ",") != "a,b,c" || strings.Join(auc.Dropped, ",") != "t" {
		t.Fatalf("methods %v dropped %v err %q", auc.Methods, auc.Dropped, auc.Err)
	}
	for j, want := range []float64{1, 2, 3} {
		if auc.Friedman.AvgRank[j] != want {
			t.Errorf("average rank of %s: %v, want %v", auc.Methods[j], auc.Friedman.AvgRank[j], want)
		}
	}
	for _, p := range auc.Pairs {
		if p.WPlus != 15 || p.WMinus != 0 || math.Abs(p.P-0.0625) > 1e-12 {
			t.Errorf("%s vs %s: W+ %v W− %v p %v, want 15, 0, 0.0625", auc.Methods[p.I], auc.Methods[p.J], p.WPlus, p.WMinus, p.P)
		}
	}
	// Fit time is lower-is-better: a (1 s) ranks first.
	if fit := cmps[2]; fit.Friedman.AvgRank[0] != 1 {
		t.Errorf("fit-time rank of a: %v, want 1", fit.Friedman.AvgRank[0])
	}
	// Score times all tie: the ranks are 2, the statistics undefined, and
	// the JSON form writes them as null.
	b, err := json.Marshal(cmps[3])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"p_friedman":null`) {
		t.Errorf("tied score times: %s", b)
	}
}

// TestComparisonJSONWithoutStatistics: a comparison that computed nothing
// (Err set) writes its statistics as null, not as zeros (a p_friedman of 0
// read as highly significant).
func TestComparisonJSONWithoutStatistics(t *testing.T) {
	b, err := json.Marshal(bench.Comparison{Metric: "auc_roc", Err: "no statistics"})
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"p_friedman":null`, `"chi2_f":null`, `"critical_difference":null`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("%s: no %s", b, key)
		}
	}
}
