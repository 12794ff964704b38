package stats

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/kernelad/anomaly/internal/testmat"
)

// The golden values come from SciPy 1.10.1 through testdata/make_golden.py
// (run it with /usr/bin/python3 from the repository root to regenerate
// testdata/golden.json); its doc string says which SciPy call gave each
// number and where the package departs from SciPy on purpose.

// num is a float written as a repr string ("nan" and "inf" included).
type num float64

func (n *num) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := strconv.ParseFloat(s, 64)
	*n = num(v)
	return err
}

func floats(a []num) []float64 {
	out := make([]float64, len(a))
	for i, v := range a {
		out[i] = float64(v)
	}
	return out
}

func floatTable(a [][]num) [][]float64 {
	out := make([][]float64, len(a))
	for i, r := range a {
		out[i] = floats(r)
	}
	return out
}

type golden struct {
	Rank []struct {
		Name    string
		X, Want []num
	}
	Friedman []struct {
		Name          string
		Scores, Ranks [][]num
		HigherBetter  bool  `json:"higher_better"`
		AvgRank       []num `json:"avg_rank"`
		ChiSq         num   `json:"chisq"`
		P, F, PF      num
		Degenerate    bool
		Source        string
	}
	Wilcoxon []struct {
		Name, Note   string
		X, Y         []num
		N, Zeros     int
		Error, Exact bool
		WPlus        num `json:"w_plus"`
		WMinus       num `json:"w_minus"`
		P            num
		ZAbs         num `json:"z_abs"`
	}
	Pairwise []struct {
		Name   string
		Scores [][]num
		Pairs  []struct {
			I, J   int
			WPlus  num `json:"w_plus"`
			WMinus num `json:"w_minus"`
			P      num
			PHolm  num `json:"p_holm"`
			Exact  bool
		}
	}
	Holm []struct {
		Name    string
		P, Want []num
	}
	Nemenyi struct {
		Q []struct {
			K        int
			Alpha, Q num
		}
		CDF []struct {
			K      int
			Q, CDF num
		}
		CD []struct {
			K, N      int
			Alpha, CD num
		}
	}
}

func loadGolden(t *testing.T) *golden { return testmat.Golden[golden](t, "golden.json") }

// Tolerances of the golden comparisons: relative 1e-10 as the package
// promises; statistics that are 0 in exact arithmetic (a χ² of perfectly
// balanced ranks) may come out of SciPy's formula as ±1e-15, hence the
// absolute slack for statistics only. p-values are compared relatively
// however small they are.
const (
	relTol  = 1e-10
	statAbs = 1e-12
)

func near(got, want, abs float64) bool {
	switch {
	case math.IsNaN(want):
		return math.IsNaN(got)
	case math.IsInf(want, 0):
		return got == want
	}
	return math.Abs(got-want) <= math.Max(relTol*math.Abs(want), abs)
}

// tracker checks values against golden ones and remembers the largest
// relative difference, which the tests log (go test -v) as the measured
// agreement with SciPy.
type tracker struct {
	t     *testing.T
	worst float64
	at    string
	count int
}

func (tr *tracker) near(what string, got, want, abs float64) {
	tr.t.Helper()
	tr.count++
	if !near(got, want, abs) {
		tr.t.Errorf("%s = %v, want %v (rel diff %.3g)", what, got, want, math.Abs(got-want)/math.Abs(want))
	}
	if want != 0 && !math.IsInf(want, 0) && !math.IsNaN(want) {
		if d := math.Abs(got-want) / math.Abs(want); d > tr.worst {
			tr.worst, tr.at = d, what
		}
	}
}

func (tr *tracker) log() {
	tr.t.Logf("%d values compared; largest relative difference %.3g (%s)", tr.count, tr.worst, tr.at)
}

func TestGoldenRank(t *testing.T) {
	for _, c := range loadGolden(t).Rank {
		got := Rank(nil, floats(c.X))
		for i, w := range floats(c.Want) {
			// Ranks are multiples of ½: they must be equal, not near.
			if !(got[i] == w || math.IsNaN(got[i]) && math.IsNaN(w)) {
				t.Errorf("%s: rank %d = %v, want %v", c.Name, i, got[i], w)
			}
		}
	}
}

func TestGoldenFriedman(t *testing.T) {
	tr := &tracker{t: t}
	defer tr.log()
	for _, c := range loadGolden(t).Friedman {
		better := LowerBetter
		if c.HigherBetter {
			better = HigherBetter
		}
		scores := floatTable(c.Scores)
		ranks, err := RankRows(scores, better)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		for i, row := range floatTable(c.Ranks) {
			for j, w := range row {
				if ranks[i][j] != w {
					t.Errorf("%s: rank [%d][%d] = %v, want %v", c.Name, i, j, ranks[i][j], w)
				}
			}
		}
		res, err := Friedman(scores, better)
		if c.Degenerate {
			if !errors.Is(err, ErrAllTied) {
				t.Errorf("%s: error %v, want ErrAllTied", c.Name, err)
			}
		} else if err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
		if res.N != len(scores) || res.K != len(scores[0]) {
			t.Errorf("%s: N, K = %d, %d", c.Name, res.N, res.K)
		}
		for j, w := range floats(c.AvgRank) {
			tr.near(c.Name+": average rank", res.AvgRank[j], w, 0)
		}
		tr.near(c.Name+": χ²_F", res.ChiSq, float64(c.ChiSq), statAbs)
		tr.near(c.Name+": p(χ²_F)", res.P, float64(c.P), 0)
		tr.near(c.Name+": F_F", res.F, float64(c.F), statAbs)
		tr.near(c.Name+": p(F_F)", res.PF, float64(c.PF), 0)
	}
}

func TestGoldenWilcoxon(t *testing.T) {
	tr := &tracker{t: t}
	defer tr.log()
	for _, c := range loadGolden(t).Wilcoxon {
		res, err := Wilcoxon(floats(c.X), floats(c.Y))
		if res.N != c.N || res.Zeros != c.Zeros {
			t.Errorf("%s: N, Zeros = %d, %d, want %d, %d", c.Name, res.N, res.Zeros, c.N, c.Zeros)
		}
		if c.Error {
			if !errors.Is(err, ErrAllTied) || !math.IsNaN(res.P) {
				t.Errorf("%s: %+v, %v; want NaN p and ErrAllTied", c.Name, res, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		if res.Exact != c.Exact {
			t.Errorf("%s: Exact = %v, want %v", c.Name, res.Exact, c.Exact)
		}
		if res.WPlus != float64(c.WPlus) || res.WMinus != float64(c.WMinus) {
			t.Errorf("%s: W+, W- = %v, %v, want %v, %v", c.Name, res.WPlus, res.WMinus, c.WPlus, c.WMinus)
		}
		tr.near(c.Name+": p", res.P, float64(c.P), 0)
		tr.near(c.Name+": |z|", math.Abs(res.Z), float64(c.ZAbs), statAbs)
		// Swapping the samples swaps W+ and W− and keeps p (SciPy 1.10's
		// exact branch with ties does not: see make_golden.py).
		sw, _ := Wilcoxon(floats(c.Y), floats(c.X))
		if sw.WPlus != res.WMinus || sw.WMinus != res.WPlus || sw.P != res.P {
			t.Errorf("%s: swapped samples give %+v, want W± swapped of %+v", c.Name, sw, res)
		}
	}
}

func TestGoldenPairwise(t *testing.T) {
	tr := &tracker{t: t}
	defer tr.log()
	for _, c := range loadGolden(t).Pairwise {
		pairs, err := PairwiseWilcoxon(floatTable(c.Scores))
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if len(pairs) != len(c.Pairs) {
			t.Fatalf("%s: %d pairs, want %d", c.Name, len(pairs), len(c.Pairs))
		}
		for i, w := range c.Pairs {
			g := pairs[i]
			if g.I != w.I || g.J != w.J || g.Exact != w.Exact || g.WPlus != float64(w.WPlus) || g.WMinus != float64(w.WMinus) {
				t.Errorf("%s: pair %d = %+v, want %+v", c.Name, i, g, w)
			}
			tr.near(c.Name+": p", g.P, float64(w.P), 0)
			tr.near(c.Name+": Holm p", g.PHolm, float64(w.PHolm), 0)
		}
	}
}

func TestGoldenHolm(t *testing.T) {
	tr := &tracker{t: t}
	defer tr.log()
	for _, c := range loadGolden(t).Holm {
		p := floats(c.P)
		got := Holm(nil, p)
		for i, w := range floats(c.Want) {
			tr.near(c.Name, got[i], w, 0)
		}
		// In place gives the same.
		Holm(p, p)
		for i := range p {
			if p[i] != got[i] {
				t.Errorf("%s: in-place Holm [%d] = %v, want %v", c.Name, i, p[i], got[i])
			}
		}
	}
}

func TestGoldenNemenyi(t *testing.T) {
	tr := &tracker{t: t}
	defer tr.log()
	g := loadGolden(t).Nemenyi
	for _, c := range g.Q {
		got := NemenyiQ(c.K, float64(c.Alpha))
		tr.near("q_α(k="+strconv.Itoa(c.K)+", α="+strconv.FormatFloat(float64(c.Alpha), 'g', -1, 64)+")", got, float64(c.Q), 0)
	}
	nodes, weights := legendre()
	for _, c := range g.CDF {
		got := rangeCDF(float64(c.Q), c.K, nodes, weights)
		tr.near("range CDF(q="+strconv.FormatFloat(float64(c.Q), 'g', -1, 64)+", k="+strconv.Itoa(c.K)+")", got, float64(c.CDF), 0)
	}
	for _, c := range g.CD {
		tr.near("CD", CriticalDifference(c.K, c.N, float64(c.Alpha)), float64(c.CD), 0)
	}
}
