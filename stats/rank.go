package stats

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
)

// ErrAllTied is returned, with NaN statistics and p-values, by a test that
// has nothing to test: Friedman's test when every data set ties all methods,
// Wilcoxon's test when every difference is zero. The test statistic's
// variance is zero under the null hypothesis, so no p-value exists (SciPy
// returns NaN for the first and raises ValueError for the second).
var ErrAllTied = errors.New("stats: every comparison is a tie, the test is undefined")

// Better says which direction of a score is an improvement, so that rank 1
// always goes to the best method.
type Better int

const (
	// HigherBetter ranks the largest score first: AUC, average precision.
	HigherBetter Better = iota + 1
	// LowerBetter ranks the smallest score first: times, errors, memory.
	LowerBetter
)

func (b Better) check() {
	if b != HigherBetter && b != LowerBetter {
		panic(fmt.Sprintf("stats: Better must be HigherBetter or LowerBetter, not %d", int(b)))
	}
}

// Rank returns the ranks 1..n of x in increasing order of value, ties given
// the mean of the ranks they span, as scipy.stats.rankdata(x,
// method='average'). Equal values (with −0 equal to +0) form one tie group;
// ±Inf rank like any other value. If any element is NaN every rank is NaN,
// as scipy.stats.rankdata's default nan_policy='propagate' gives.
//
// dst receives the ranks and is returned; if dst is nil a new slice is
// allocated, otherwise its length must equal len(x).
func Rank(dst, x []float64) []float64 {
	if dst == nil {
		dst = make([]float64, len(x))
	} else if len(dst) != len(x) {
		panic(fmt.Sprintf("stats: destination length %d, want %d", len(dst), len(x)))
	}
	if slices.ContainsFunc(x, math.IsNaN) {
		for i := range dst {
			dst[i] = math.NaN()
		}
		return dst
	}
	idx := argsort(x)
	for a := 0; a < len(idx); {
		b := a
		for b+1 < len(idx) && x[idx[b+1]] == x[idx[a]] {
			b++
		}
		// Positions a..b (0-based) hold ranks a+1..b+1; their mean is
		// (a+b)/2+1, a multiple of ½ and so exact.
		r := float64(a+b)/2 + 1
		for _, i := range idx[a : b+1] {
			dst[i] = r
		}
		a = b + 1
	}
	return dst
}

// tieTerm returns Σ t(t²−1) over the tie groups of the ranks r (equal ranks
// come from equal values), the quantity the tie corrections of Friedman's
// and Wilcoxon's statistics subtract.
func tieTerm(r []float64) float64 {
	s := slices.Clone(r)
	slices.Sort(s)
	var sum float64
	for a := 0; a < len(s); {
		b := a
		for b+1 < len(s) && s[b+1] == s[a] {
			b++
		}
		t := float64(b - a + 1)
		sum += t * (t*t - 1)
		a = b + 1
	}
	return sum
}

// checkTable panics unless scores is an N × k table with N ≥ 2 data sets
// (rows) and k ≥ 2 methods (columns), and returns an error naming the first
// NaN score.
func checkTable(scores [][]float64) (n, k int, err error) {
	n = len(scores)
	if n < 2 {
		panic(fmt.Sprintf("stats: need at least 2 data sets (rows), have %d", n))
	}
	k = len(scores[0])
	if k < 2 {
		panic(fmt.Sprintf("stats: need at least 2 methods (columns), have %d", k))
	}
	for i, row := range scores {
		if len(row) != k {
			panic(fmt.Sprintf("stats: ragged table: data set %d has %d scores, data set 0 has %d", i, len(row), k))
		}
	}
	for i, row := range scores {
		for j, v := range row {
			if math.IsNaN(v) {
				return n, k, fmt.Errorf("stats: score of method %d on data set %d is NaN (0-based indices)", j, i)
			}
		}
	}
	return n, k, nil
}

// RankRows ranks the methods within each data set: scores is an N × k table
// (row i = data set, column j = method) and the result has the same shape,
// rank 1 being the best score of its row in the direction better, ties given
// their mean rank (Rank on each row, of −score when higher is better).
//
// RankRows panics if the table has fewer than 2 rows or 2 columns, if its
// rows differ in length, or if better is not HigherBetter or LowerBetter; it
// returns an error if a score is NaN.
func RankRows(scores [][]float64, better Better) ([][]float64, error) {
	better.check()
	n, k, err := checkTable(scores)
	if err != nil {
		return nil, err
	}
	out := make([][]float64, n)
	key := make([]float64, k)
	for i, row := range scores {
		for j, v := range row {
			if better == HigherBetter {
				v = -v
			}
			key[j] = v
		}
		out[i] = Rank(nil, key)
	}
	return out, nil
}

// argsort returns the indices of x in increasing order of their values,
// equal values in index order. x must hold no NaN.
func argsort(x []float64) []int {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sortByValue(idx, x)
	return idx
}

// sortByValue sorts the indices idx stably in increasing order of x[i].
// x[idx] must hold no NaN (cmp.Compare would put it first).
func sortByValue(idx []int, x []float64) {
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(x[a], x[b]) })
}
