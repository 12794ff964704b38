package stats

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/integrate/quad"
)

// Quadrature of the studentized range distribution: Gauss–Legendre with
// legendreNodes nodes on each panel of width panelWidth over [−zMax, zMax].
// Outside that interval the normal density is below 6e-32, far under the
// rounding of any probability the package asks for.
const (
	zMax          = 12.0
	panelWidth    = 0.5
	legendreNodes = 20
)

// rangeCDF returns P(Q ≤ q) for the range Q of k independent standard
// normal variables (the studentized range with infinite degrees of freedom):
//
//	P(Q ≤ q) = k ∫ φ(z) (Φ(z) − Φ(z−q))^(k−1) dz
//
// (one of the k, k ways, is the largest at z and the other k−1 lie in
// [z−q, z]). nodes and weights are Gauss–Legendre nodes and weights on
// [−1, 1].
func rangeCDF(q float64, k int, nodes, weights []float64) float64 {
	if q <= 0 {
		return 0
	}
	if math.IsInf(q, 1) {
		return 1
	}
	return math.Min(1, integrate(nodes, weights, func(z float64) float64 {
		// Φ(z) − Φ(z−q) as a difference of upper tails, which keeps its
		// relative precision when both are near 1.
		in := 0.5 * (math.Erfc((z-q)/math.Sqrt2) - math.Erfc(z/math.Sqrt2))
		return math.Pow(in, float64(k-1))
	})*float64(k))
}

// rangeSF returns P(Q > q) = 1 − rangeCDF(q, k) without the cancellation of
// the subtraction, so that small tail probabilities keep their relative
// precision: since k ∫ φ(z) Φ(z)^(k−1) dz = 1,
//
//	P(Q > q) = k ∫ φ(z) (a^(k−1) − b^(k−1)) dz,  a = Φ(z), b = Φ(z) − Φ(z−q),
//
// and a^m − b^m = −a^m expm1(m log1p(−Φ(z−q)/a)).
func rangeSF(q float64, k int, nodes, weights []float64) float64 {
	if q <= 0 {
		return 1
	}
	if math.IsInf(q, 1) {
		return 0
	}
	m := float64(k - 1)
	return math.Min(1, integrate(nodes, weights, func(z float64) float64 {
		a := 0.5 * math.Erfc(-z/math.Sqrt2)
		c := 0.5 * math.Erfc(-(z-q)/math.Sqrt2)
		if a == 0 {
			return 0
		}
		return -math.Pow(a, m) * math.Expm1(m*math.Log1p(-c/a))
	})*float64(k))
}

// integrate returns ∫ φ(z) f(z) dz over [−zMax, zMax] by Gauss–Legendre on
// panels.
func integrate(nodes, weights []float64, f func(z float64) float64) float64 {
	var sum float64
	half := panelWidth / 2
	for a := -zMax; a < zMax; a += panelWidth {
		mid := a + half
		var s float64
		for i, t := range nodes {
			z := mid + half*t
			s += weights[i] * math.Exp(-z*z/2) * f(z)
		}
		sum += half * s
	}
	return sum / math.Sqrt(2*math.Pi)
}

// legendre returns the Gauss–Legendre nodes and weights on [−1, 1].
func legendre() (nodes, weights []float64) {
	nodes, weights = make([]float64, legendreNodes), make([]float64, legendreNodes)
	quad.Legendre{}.FixedLocations(nodes, weights, -1, 1)
	return nodes, weights
}

// NemenyiQ returns Nemenyi's critical value q_α for k methods: the 1−α
// quantile of the studentized range of k standard normal variables
// (infinite degrees of freedom) divided by √2, as tabulated by Demšar
// (2006, Table 5): 1.960, 2.343, 2.569, … at α = 0.05 for k = 2, 3, 4, ….
// For k = 2 it is the normal quantile z_{1−α/2}.
//
// The distribution function is integrated numerically (see rangeCDF) and
// the quantile found by bisection to within a few units in the last place;
// the values agree with scipy.stats.studentized_range.ppf(1−α, k, inf)/√2
// to 1e-12 or better (the package tests compare k = 2…30).
//
// NemenyiQ panics unless k ≥ 2 and 0 < α < 1.
func NemenyiQ(k int, alpha float64) float64 {
	if k < 2 {
		panic(fmt.Sprintf("stats: Nemenyi's test needs at least 2 methods, have %d", k))
	}
	if !(alpha > 0 && alpha < 1) {
		panic(fmt.Sprintf("stats: significance level %v is not in (0, 1)", alpha))
	}
	nodes, weights := legendre()
	// Bisection on the survival function, decreasing in q, whose relative
	// precision carries over to small α.
	lo, hi := 0.0, 1.0
	for rangeSF(hi, k, nodes, weights) > alpha {
		lo, hi = hi, 2*hi
		if hi > 1e3 {
			panic(fmt.Sprintf("stats: no studentized range quantile for k=%d, α=%v", k, alpha))
		}
	}
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if rangeSF(mid, k, nodes, weights) > alpha {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + (hi-lo)/2) / math.Sqrt2
}

// CriticalDifference returns Nemenyi's critical difference for k methods
// compared over n data sets at level α,
//
//	CD = q_α √(k(k+1) / (6n)),
//
// with q_α from NemenyiQ: two methods whose average ranks differ by at least
// CD perform significantly differently (Demšar 2006, Section 3.2.2).
//
// CriticalDifference panics unless k ≥ 2, n ≥ 2 and 0 < α < 1.
func CriticalDifference(k, n int, alpha float64) float64 {
	if n < 2 {
		panic(fmt.Sprintf("stats: need at least 2 data sets, have %d", n))
	}
	q := NemenyiQ(k, alpha)
	kf := float64(k)
	return q * math.Sqrt(kf*(kf+1)/(6*float64(n)))
}

// NemenyiGroups returns the groups of methods that the critical-difference
// diagram joins with a bar: the maximal runs of methods, in order of average
// rank, whose first and last average ranks differ by less than cd, so that
// no pair inside a group is significantly different. Each group lists
// method indices (into avgRank) from the best rank to the worst and has at
// least two members; groups come in order of their best member, and a
// method that differs significantly from every other is in no group.
// Methods with equal average ranks keep their index order.
//
// NemenyiGroups panics if an average rank is NaN or cd is not positive.
func NemenyiGroups(avgRank []float64, cd float64) [][]int {
	if !(cd > 0) {
		panic(fmt.Sprintf("stats: critical difference %v is not positive", cd))
	}
	if slices.ContainsFunc(avgRank, math.IsNaN) {
		panic("stats: NaN average rank")
	}
	order := argsort(avgRank)
	var groups [][]int
	last := 0 // the end of the previous group, exclusive
	for i := range order {
		j := i
		for j+1 < len(order) && avgRank[order[j+1]]-avgRank[order[i]] < cd {
			j++
		}
		if j > i && j+1 > last {
			groups = append(groups, slices.Clone(order[i:j+1]))
			last = j + 1
		}
	}
	return groups
}
