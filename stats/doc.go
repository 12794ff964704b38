// Package stats compares methods over several data sets with the
// non-parametric tests that Demšar (2006) recommends and the R1STM paper
// (Erfani et al.) uses: average ranks and Friedman's test (its Figure 3),
// Nemenyi's critical difference, and pairwise Wilcoxon signed-rank tests
// (its Table 4), with Holm's correction for the multiple comparisons. It
// computes; it neither prints, reads files nor draws (package plot draws the
// critical-difference diagram and the average-rank bars from its results).
//
// # Conventions
//
// Scores come as an N × k table, [][]float64 with one row per data set and
// one column per method (rows are observations, as in gonum). Each method is
// ranked within its data set, rank 1 being the best; the caller says which
// direction is better with HigherBetter (AUC, average precision) or
// LowerBetter (times, errors). Ties get the mean of the ranks they span
// (Rank, like scipy.stats.rankdata). An average rank near 1 is therefore
// good whatever the metric.
//
// # Friedman's test
//
// With r_ij the rank of method j on data set i and R_j = Σ_i r_ij,
//
//	χ²_F = 12 / (N k (k+1)) · Σ_j (R_j − N(k+1)/2)² / C,   C = 1 − Σ t(t²−1) / (N k (k²−1)),
//
// where the sum in C runs over the tie groups (of size t) of every row; C =
// 1 without ties. This is scipy.stats.friedmanchisquare's statistic (SciPy
// requires k ≥ 3; here k = 2 is allowed and gives the same formula). Under
// the null hypothesis that all methods are equivalent, χ²_F is
// approximately χ² with k−1 degrees of freedom (Friedman 1937, 1940). Iman
// and Davenport (1980) showed that
//
//	F_F = (N−1) χ²_F / (N(k−1) − χ²_F)
//
// follows the F distribution with k−1 and (k−1)(N−1) degrees of freedom
// more closely; Demšar recommends it. F_F is +Inf, with p-value 0, when
// every data set ranks the methods identically.
//
// # Nemenyi's critical difference
//
// After Friedman's test rejects, two methods differ significantly when
// their average ranks differ by at least
//
//	CD = q_α √(k(k+1) / (6N))
//
// (Nemenyi 1963), where q_α is the 1−α quantile of the range of k
// independent standard normal variables (the studentized range with
// infinite degrees of freedom) divided by √2. NemenyiQ computes it for any
// k ≥ 2 and α by integrating P(Q ≤ q) = k ∫ φ(z)(Φ(z) − Φ(z−q))^(k−1) dz
// numerically (Gauss–Legendre panels from gonum's integrate/quad) and
// solving for q by bisection; the tests check it against
// scipy.stats.studentized_range.ppf for k = 2…30 and α = 0.01, 0.05, 0.10
// (agreement 1e-14 relative) and against Demšar's Table 5. NemenyiGroups
// returns the groups of methods that a critical-difference diagram joins
// with a bar.
//
// # Wilcoxon's signed-rank test
//
// For paired scores (x_i, y_i) of two methods, d_i = x_i − y_i; zero
// differences are dropped (Wilcoxon 1945; SciPy's zero_method='wilcox'),
// leaving n. The |d_i| are ranked (ties averaged) and
//
//	W⁺ = Σ_{d_i > 0} rank(|d_i|),   W⁻ = Σ_{d_i < 0} rank(|d_i|),   W⁺ + W⁻ = n(n+1)/2,
//
// so W⁺ sums the ranks of the data sets where x scored higher (as in the
// R1STM paper's Table 4). The p-value is two-sided:
//
//   - Exact, when the number of pairs (zeros included) is at most 50 and
//     there are no zero differences and no ties among the |d_i|: under the
//     null hypothesis the 2ⁿ sign patterns are equally likely, and
//     p = 2 min(P(W⁺ ≤ w), P(W⁺ ≥ w)) for the observed w, or 1 when w is the
//     centre ⌊n(n+1)/4⌋ (SciPy's rule). The counts are integers and the
//     p-value is exact.
//   - Otherwise the normal approximation without continuity correction,
//     z = (W⁺ − n(n+1)/4) / σ with σ² = (n(n+1)(2n+1) − ½ Σ t(t²−1)) / 24
//     (tie groups of size t), p = 2Φ(−|z|).
//
// These are the rules of scipy.stats.wilcoxon(x, y) in SciPy 1.10 with its
// defaults (zero_method='wilcox', correction=False, method='auto'), with one
// deliberate difference: SciPy 1.10 also takes the exact branch when the
// |d_i| have ties (and no zeros), where it truncates a rank sum such as 2.5
// to an integer, so its p-value then depends on which sample comes first.
// This package uses the normal approximation with the tie-corrected
// variance for those cases (SciPy 1.10's method='approx'), and the result
// is symmetric in x and y. Later SciPy versions also stop using the exact
// branch when there are ties. With few data sets and many ties the normal
// approximation is rough; the Exact field says which p-value was given.
//
// # Holm's correction
//
// PairwiseWilcoxon runs k(k−1)/2 tests, so it adjusts their p-values with
// Holm's (1979) step-down method (Holm, as statsmodels' multipletests with
// method='holm'): with the m p-values sorted, p̃_(i) = min(1, max_{j≤i}
// (m−j+1) p_(j)). Rejecting when p̃ ≤ α keeps the family-wise error rate at
// most α.
//
// # Errors
//
// A table of the wrong shape (fewer than 2 data sets or 2 methods, rows of
// different lengths), unequal sample lengths or an invalid argument is a
// programmer's error and panics with a "stats: " message, as gonum does. A
// NaN score is a data problem and returned as an error naming the data set
// and method. A test with nothing to test — every data set ties all methods
// (Friedman), every difference is zero (Wilcoxon) — returns ErrAllTied with
// NaN p-values (and NaN χ²_F, F_F or z), never a made-up p-value (SciPy
// gives NaN for the first and raises ValueError for the second);
// PairwiseWilcoxon reports such a pair with NaN p-values and leaves it out
// of Holm's family.
//
// # Dependencies
//
// The χ², F and normal distribution functions are gonum's (stat/distuv); the
// F survival function is computed as the CDF of 1/F ~ F(d₂, d₁) because
// distuv.F.Survival is 1 − CDF, which loses small p-values. The quadrature
// nodes are gonum's (integrate/quad). gonum has no studentized range
// distribution, hence NemenyiQ.
//
// The golden tests compare every statistic and p-value with SciPy 1.10.1 to
// 1e-10 relative (testdata/make_golden.py writes testdata/golden.json; its
// doc string says which SciPy call gave each value).
//
// # References
//
//   - M. Friedman, The use of ranks to avoid the assumption of normality
//     implicit in the analysis of variance, JASA 32 (1937) 675–701; A
//     comparison of alternative tests of significance for the problem of m
//     rankings, Ann. Math. Stat. 11 (1940) 86–92.
//   - R. L. Iman, J. M. Davenport, Approximations of the critical region of
//     the Friedman statistic, Comm. Stat. A 9 (1980) 571–595.
//   - P. B. Nemenyi, Distribution-free multiple comparisons, PhD thesis,
//     Princeton University, 1963.
//   - J. Demšar, Statistical comparisons of classifiers over multiple data
//     sets, JMLR 7 (2006) 1–30.
//   - F. Wilcoxon, Individual comparisons by ranking methods, Biometrics
//     Bulletin 1 (1945) 80–83.
//   - S. Holm, A simple sequentially rejective multiple test procedure,
//     Scand. J. Stat. 6 (1979) 65–70.
//   - S. M. Erfani et al., R1STM: One-class support tensor machine with
//     randomised kernel (the project's papers/003), Figure 3 and Table 4.
package stats
