package stats

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// Demšar (2006), Table 5(a): critical values q_α of the two-tailed Nemenyi
// test for k = 2..10 classifiers, three decimals as printed. Three printed
// values differ from the quantile rounded to three decimals by one unit in
// the last place (2.343, 2.949 and 2.459 where SciPy's and our quantiles
// round to 2.344, 2.948 and 2.460), hence the tolerance.
func TestNemenyiDemsarTable(t *testing.T) {
	table := map[float64][]float64{
		0.05: {1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164},
		0.10: {1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920},
	}
	for alpha, qs := range table {
		for i, want := range qs {
			k := i + 2
			if got := NemenyiQ(k, alpha); math.Abs(got-want) > 0.0011 {
				t.Errorf("q_%v(k=%d) = %.5f, Demšar prints %.3f", alpha, k, got, want)
			}
		}
	}
}

// For k = 2 the range is |X₁ − X₂| ~ |N(0, 2)|, so P(Q ≤ q) = 2Φ(q/√2) − 1
// and q_α/√2 is the normal quantile z_{1−α/2}.
func TestRangeCDFTwo(t *testing.T) {
	nodes, weights := legendre()
	for q := 0.05; q < 12; q += 0.05 {
		want := math.Erf(q / 2)
		if got := rangeCDF(q, 2, nodes, weights); math.Abs(got-want) > 1e-15 {
			t.Errorf("k=2, q=%v: CDF %v, want %v", q, got, want)
		}
		// The survival function keeps its relative precision in the tail
		// (erfc(6) ≈ 2e-17).
		want = math.Erfc(q / 2)
		if got := rangeSF(q, 2, nodes, weights); math.Abs(got-want) > 1e-13*want {
			t.Errorf("k=2, q=%v: SF %v, want %v", q, got, want)
		}
	}
	for _, k := range []int{3, 5, 10, 30} {
		for q := 0.25; q < 8; q += 0.25 {
			if s := rangeCDF(q, k, nodes, weights) + rangeSF(q, k, nodes, weights); math.Abs(s-1) > 1e-14 {
				t.Errorf("k=%d, q=%v: CDF + SF = 1%+.3g", k, q, s-1)
			}
		}
	}
	for _, alpha := range []float64{0.5, 0.2, 0.1, 0.05, 0.01, 1e-6, 1e-12} {
		want := -distuv.UnitNormal.Quantile(alpha / 2) // not Quantile(1−α/2): 1−α/2 rounds
		if got := NemenyiQ(2, alpha); math.Abs(got-want) > 1e-12*want {
			t.Errorf("q_%v(2) = %v, want z = %v", alpha, got, want)
		}
	}
}

// exactP against a brute-force count over all 2ⁿ sign patterns, for every
// possible W⁺, n = 1..14.
func TestExactPBruteForce(t *testing.T) {
	for n := 1; n <= 14; n++ {
		top := n * (n + 1) / 2
		count := make([]int, top+1)
		for mask := 0; mask < 1<<n; mask++ {
			s := 0
			for i := 0; i < n; i++ {
				if mask&(1<<i) != 0 {
					s += i + 1
				}
			}
			count[s]++
		}
		for w := 0; w <= top; w++ {
			le, ge := 0, 0
			for s, c := range count {
				if s <= w {
					le += c
				}
				if s >= w {
					ge += c
				}
			}
			want := 2 * float64(min(le, ge)) / float64(int(1)<<n)
			if w == top/2 {
				want = 1
			}
			if got := exactP(n, w); got != want {
				t.Errorf("n=%d, W+=%d: p = %v, want %v", n, w, got, want)
			}
		}
	}
}

// Reversing the direction turns every rank r into k+1−r and leaves
// Friedman's statistics alone.
func TestFriedmanDirection(t *testing.T) {
	s := [][]float64{{0.9, 0.8, 0.8, 0.7}, {0.5, 0.6, 0.7, 0.8}, {0.3, 0.3, 0.3, 0.1}, {1, 2, 3, 3}}
	hi, err := Friedman(s, HigherBetter)
	if err != nil {
		t.Fatal(err)
	}
	lo, err := Friedman(s, LowerBetter)
	if err != nil {
		t.Fatal(err)
	}
	for j := range hi.AvgRank {
		if hi.AvgRank[j]+lo.AvgRank[j] != 5 {
			t.Errorf("method %d: ranks %v and %v do not sum to k+1", j, hi.AvgRank[j], lo.AvgRank[j])
		}
	}
	if hi.ChiSq != lo.ChiSq || hi.P != lo.P || hi.F != lo.F || hi.PF != lo.PF {
		t.Errorf("direction changed the test: %+v vs %+v", hi, lo)
	}
	// Method 0 wins data set 0 outright and ties for first on data set 2
	// (0.3, 0.3, 0.3, 0.1): ranks 1, 4, 2, 4 → mean 2.75.
	if hi.AvgRank[0] != 2.75 {
		t.Errorf("average rank of method 0 = %v, want 2.75", hi.AvgRank[0])
	}
}

func TestNemenyiGroups(t *testing.T) {
	for _, tc := range []struct {
		ranks []float64
		cd    float64
		want  [][]int
	}{
		// Sorted: 1(1.0) 0(1.5) 3(2.2) 2(3.9); CD 1 joins {1,0} (0.5) and
		// {0,3} (0.7); 1→3 is 1.2, 3→2 is 1.7.
		{[]float64{1.5, 1.0, 3.9, 2.2}, 1, [][]int{{1, 0}, {0, 3}}},
		// Everything within CD: one group.
		{[]float64{2, 2.5, 1.5}, 1.1, [][]int{{2, 0, 1}}},
		// Nothing within CD.
		{[]float64{1, 2, 3}, 0.9, nil},
		// A difference exactly CD is significant: no bar.
		{[]float64{1, 2}, 1, nil},
		// Equal ranks keep index order; a group inside a larger one is
		// not repeated.
		{[]float64{3, 1, 1, 2, 5}, 1.5, [][]int{{1, 2, 3}, {3, 0}}},
	} {
		got := NemenyiGroups(tc.ranks, tc.cd)
		if !slices.EqualFunc(got, tc.want, slices.Equal) {
			t.Errorf("NemenyiGroups(%v, %v) = %v, want %v", tc.ranks, tc.cd, got, tc.want)
		}
	}
}

// NaN p-values are left out of Holm's family, and a pair of identical
// methods gives NaN p-values that PairwiseWilcoxon leaves out likewise.
func TestHolmNaN(t *testing.T) {
	nan := math.NaN()
	got := Holm(nil, []float64{0.01, nan, 0.04, 0.03})
	want := Holm(nil, []float64{0.01, 0.04, 0.03})
	if !math.IsNaN(got[1]) || got[0] != want[0] || got[2] != want[1] || got[3] != want[2] {
		t.Errorf("Holm with NaN = %v, want NaN at 1 and %v elsewhere", got, want)
	}
	s := [][]float64{{1, 1, 3}, {2, 2, 1}, {3, 3, 5}, {4, 4, 2}, {5, 5, 9}, {6, 6, 0}}
	pairs, err := PairwiseWilcoxon(s)
	if err != nil {
		t.Fatal(err)
	}
	if p := pairs[0]; p.I != 0 || p.J != 1 || !math.IsNaN(p.P) || !math.IsNaN(p.PHolm) || p.N != 0 || p.Zeros != 6 {
		t.Errorf("identical pair: %+v", p)
	}
	adj := Holm(nil, []float64{pairs[1].P, pairs[2].P})
	if pairs[1].PHolm != adj[0] || pairs[2].PHolm != adj[1] {
		t.Errorf("Holm over the defined pairs: %v, %v, want %v", pairs[1].PHolm, pairs[2].PHolm, adj)
	}
}
