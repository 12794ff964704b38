package stats

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// MaxExact is the largest number of pairs for which Wilcoxon uses the exact
// null distribution (when there are no zero differences and no ties), the
// threshold of scipy.stats.wilcoxon's method='auto'.
const MaxExact = 50

// WilcoxonResult is Wilcoxon's signed-rank test of paired scores x and y.
type WilcoxonResult struct {
	// N is the number of nonzero differences d_i = x_i − y_i, the ones
	// ranked; Zeros is the number of zero differences, dropped
	// (zero_method='wilcox').
	N, Zeros int

	// WPlus is the sum of the ranks of |d_i| over d_i > 0, WMinus over
	// d_i < 0; WPlus + WMinus = N(N+1)/2.
	WPlus, WMinus float64

	// Exact reports whether P comes from the exact null distribution;
	// otherwise it comes from the normal approximation with standard
	// score Z = (W⁺ − μ)/σ (Z is NaN when Exact).
	Exact bool
	Z     float64

	// P is the two-sided p-value.
	P float64
}

// Wilcoxon runs Wilcoxon's signed-rank test on the pairs (x_i, y_i), say
// the scores of two methods on the same data sets, with the rules of
// scipy.stats.wilcoxon(x, y) in SciPy 1.10 (zero_method='wilcox',
// correction=False, alternative='two-sided', method='auto'), except that
// tied |d_i| switch to the normal approximation (see the package
// documentation, which gives the formulas).
//
// Wilcoxon panics if x and y differ in length or hold fewer than 2 pairs. It
// returns an error if a score or a difference is NaN, and ErrAllTied (with
// P and Z NaN) if every difference is zero.
func Wilcoxon(x, y []float64) (WilcoxonResult, error) {
	if len(x) != len(y) {
		panic(fmt.Sprintf("stats: %d and %d paired scores", len(x), len(y)))
	}
	if len(x) < 2 {
		panic(fmt.Sprintf("stats: need at least 2 pairs, have %d", len(x)))
	}
	d := make([]float64, 0, len(x))
	var res WilcoxonResult
	for i := range x {
		v := x[i] - y[i]
		if math.IsNaN(v) {
			return WilcoxonResult{}, fmt.Errorf("stats: pair %d (0-based): %v − %v is NaN", i, x[i], y[i])
		}
		if v == 0 {
			res.Zeros++
			continue
		}
		d = append(d, v)
	}
	res = wilcoxon(d, len(x), res)
	if res.N == 0 {
		return res, ErrAllTied
	}
	return res, nil
}

// wilcoxon completes res from the nonzero differences d of total pairs.
func wilcoxon(d []float64, total int, res WilcoxonResult) WilcoxonResult {
	res.N = len(d)
	if res.N == 0 {
		res.Z, res.P = math.NaN(), math.NaN()
		return res
	}
	abs := make([]float64, len(d))
	for i, v := range d {
		abs[i] = math.Abs(v)
	}
	r := Rank(nil, abs)
	for i, v := range d {
		if v > 0 {
			res.WPlus += r[i]
		} else {
			res.WMinus += r[i]
		}
	}
	ties := tieTerm(r)
	n := float64(res.N)
	if total <= MaxExact && res.Zeros == 0 && ties == 0 {
		res.Exact, res.Z = true, math.NaN()
		res.P = exactP(res.N, int(res.WPlus))
		return res
	}
	mean := n * (n + 1) / 4
	sd := math.Sqrt((n*(n+1)*(2*n+1) - ties/2) / 24)
	res.Z = (res.WPlus - mean) / sd
	res.P = 2 * distuv.UnitNormal.CDF(-math.Abs(res.Z))
	return res
}

// exactP returns the two-sided p-value of W⁺ = w among n untied nonzero
// differences: 2 min(P(W⁺ ≤ w), P(W⁺ ≥ w)) under the null distribution
// (each of the 2ⁿ sign patterns equally likely), or 1 when w is the centre
// ⌊n(n+1)/4⌋ of the distribution, as SciPy computes it. The counts of sign
// patterns are integers below 2⁵⁰ for n ≤ 50, so the result is exact.
func exactP(n, w int) float64 {
	top := n * (n + 1) / 2
	if w == top/2 {
		return 1
	}
	// count[s] = number of subsets of {1, …, n} whose sum is s.
	count := make([]uint64, top+1)
	count[0] = 1
	for m := 1; m <= n; m++ {
		for s := m * (m + 1) / 2; s >= m; s-- {
			count[s] += count[s-m]
		}
	}
	var le, ge uint64
	for s, c := range count {
		if s <= w {
			le += c
		}
		if s >= w {
			ge += c
		}
	}
	return math.Ldexp(float64(min(le, ge)), 1-n)
}

// Pair is the Wilcoxon test of two columns of a table of scores.
type Pair struct {
	// I < J are the methods (columns) compared; the differences are
	// scores[·][I] − scores[·][J], so WPlus sums the ranks of the data sets
	// where method I scored higher.
	I, J int
	WilcoxonResult
	// PHolm is P adjusted by Holm's step-down method over the family of
	// all pairs with a p-value (NaN where P is NaN).
	PHolm float64
}

// PairwiseWilcoxon runs Wilcoxon on every pair of methods of an N × k table
// of scores (row = data set, column = method), as Table 4 of the R1STM paper
// does, and adjusts the p-values for multiple comparisons with Holm. The
// pairs come in the order (0,1), (0,2), …, (0,k−1), (1,2), ….
//
// A pair of methods that score the same on every data set has P, Z and
// PHolm NaN (Wilcoxon's ErrAllTied) and is left out of Holm's family.
//
// PairwiseWilcoxon panics if the table has fewer than 2 rows or 2 columns or
// its rows differ in length; it returns an error if a score is NaN or a
// difference is NaN (+Inf − +Inf).
func PairwiseWilcoxon(scores [][]float64) ([]Pair, error) {
	n, k, err := checkTable(scores)
	if err != nil {
		return nil, err
	}
	x, y := make([]float64, n), make([]float64, n)
	var pairs []Pair
	var ps []float64
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			for r, row := range scores {
				x[r], y[r] = row[i], row[j]
			}
			w, err := Wilcoxon(x, y)
			if err != nil && !errors.Is(err, ErrAllTied) {
				return nil, fmt.Errorf("stats: methods %d and %d: %w", i, j, err)
			}
			pairs = append(pairs, Pair{I: i, J: j, WilcoxonResult: w})
			ps = append(ps, w.P)
		}
	}
	adj := Holm(nil, ps)
	for i := range pairs {
		pairs[i].PHolm = adj[i]
	}
	return pairs, nil
}
