package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// FriedmanResult is Friedman's test of k methods over N data sets.
type FriedmanResult struct {
	N, K int // data sets (rows) and methods (columns)

	// AvgRank is the mean over the data sets of each method's rank within
	// its data set (RankRows): 1 is the best possible, K the worst; the
	// ranks sum to K(K+1)/2.
	AvgRank []float64

	// ChiSq is Friedman's statistic χ²_F with the tie correction of
	// scipy.stats.friedmanchisquare, and P its p-value: the survival
	// function of χ² with K−1 degrees of freedom.
	ChiSq, P float64

	// F is Iman and Davenport's statistic (N−1)χ²_F / (N(K−1) − χ²_F) and
	// PF its p-value: the survival function of the F distribution with K−1
	// and (K−1)(N−1) degrees of freedom. F is +Inf (and PF 0) when every
	// data set ranks the methods the same way.
	F, PF float64
}

// Friedman runs Friedman's test on an N × k table of scores (row i = data
// set, column j = method): the methods are ranked within each data set (rank
// 1 = best in the direction better, ties averaged), and the test asks
// whether the mean ranks differ more than chance would make them. See the
// package documentation for the formulas.
//
// Friedman panics if the table has fewer than 2 rows or 2 columns, if its
// rows differ in length, or if better is not HigherBetter or LowerBetter. It
// returns an error if a score is NaN. If every data set ties all the methods
// it returns the result (mean ranks all (k+1)/2, statistics and p-values
// NaN) together with ErrAllTied.
func Friedman(scores [][]float64, better Better) (FriedmanResult, error) {
	ranks, err := RankRows(scores, better)
	if err != nil {
		return FriedmanResult{}, err
	}
	n, k := len(ranks), len(ranks[0])
	nf, kf := float64(n), float64(k)
	res := FriedmanResult{N: n, K: k, AvgRank: make([]float64, k)}
	sums := make([]float64, k)
	var ties float64
	for _, row := range ranks {
		for j, r := range row {
			sums[j] += r
		}
		ties += tieTerm(row)
	}
	// Rank sums are multiples of ½ and their deviations from N(k+1)/2 are
	// too, so ssb (the squared deviations) is exact.
	var ssb float64
	for j, s := range sums {
		res.AvgRank[j] = s / nf
		d := s - nf*(kf+1)/2
		ssb += d * d
	}
	// sse is the residual sum of squares of the two-way layout: the ranks'
	// squared deviations from their method's mean rank. Its row effects are
	// zero (every row's ranks sum to k(k+1)/2), so with the total
	// SST = Σ(r_ij − (k+1)/2)² = Nk(k²−1)c/12 the identity SST = ssb/N + sse
	// holds, and Iman–Davenport's F = (N−1)(ssb/N)/sse. Computing sse
	// directly keeps F ≥ 0 where N(k−1) − χ²_F would cancel.
	var sse float64
	for _, row := range ranks {
		for j, r := range row {
			d := r - res.AvgRank[j]
			sse += d * d
		}
	}
	c := 1 - ties/(kf*(kf*kf-1)*nf)
	if c <= 0 { // every row is one tie group
		nan := math.NaN()
		res.ChiSq, res.P, res.F, res.PF = nan, nan, nan, nan
		return res, ErrAllTied
	}
	res.ChiSq = 12 / (nf * kf * (kf + 1)) * ssb / c
	res.P = distuv.ChiSquared{K: kf - 1}.Survival(res.ChiSq)
	d1, d2 := kf-1, (kf-1)*(nf-1)
	switch {
	case sse == 0:
		res.F, res.PF = math.Inf(1), 0
	case ssb == 0:
		res.F, res.PF = 0, 1
	default:
		res.F = (nf - 1) * (ssb / nf) / sse
		res.PF = fSurvival(res.F, d1, d2)
	}
	return res, nil
}

// fSurvival returns P(X > x) for X ~ F(d1, d2) and x > 0, as the CDF of
// 1/X ~ F(d2, d1) at 1/x: gonum's F.Survival is 1 − CDF, which loses the
// relative precision of small p-values.
func fSurvival(x, d1, d2 float64) float64 {
	return distuv.F{D1: d2, D2: d1}.CDF(1 / x)
}
