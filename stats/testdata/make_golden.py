#!/usr/bin/python3
"""Write golden.json: SciPy's ranks, Friedman tests, Wilcoxon tests and
studentized range quantiles, and Holm-adjusted p-values, for the tests of
package stats.

Run from the repository root:  /usr/bin/python3 stats/testdata/make_golden.py
Made with SciPy 1.10.1 and NumPy 1.24.2 (Debian python3-scipy); the script
refuses another SciPy version, since Wilcoxon's rules changed after 1.10.

Where the numbers come from:

- rank: scipy.stats.rankdata(x) (method='average', nan_policy='propagate').
- friedman: ranks within a row are rankdata(-row) when higher is better,
  rankdata(row) when lower is better; chisq and p are
  scipy.stats.friedmanchisquare(*columns). SciPy refuses k = 2 methods, so
  for k = 2 chisq is the same formula written out here (friedman_by_hand,
  which is checked against SciPy on every k >= 3 case) and p is
  scipy.stats.chi2.sf. Every chisq is also computed in exact rational
  arithmetic (fractions.Fraction) and the script stops if SciPy's differs by
  more than 1e-12 relative. Iman-Davenport's F is
  (N-1) chisq / (N(k-1) - chisq) in exact arithmetic (+inf when the
  denominator is 0), and its p-value scipy.stats.f.sf(F, k-1, (k-1)(N-1)).
- wilcoxon: scipy.stats.wilcoxon(x, y) with its defaults (zero_method=
  'wilcox', correction=False, method='auto'). W+ is the statistic of
  wilcoxon(x, y, alternative='greater') and W- that of wilcoxon(y, x,
  alternative='greater') (the one-sided tests return r_plus). SciPy 1.10's
  'auto' uses the exact distribution whenever len(x) <= 50 and no difference
  is zero, even when |x - y| has ties; it then truncates the non-integer
  rank sum with int(), so the p-value depends on the order of x and y.
  Package stats uses the normal approximation with the tie-corrected
  variance for those cases instead; the golden p for them is
  wilcoxon(x, y, method='approx') (SciPy 1.10's own approximation) and
  scipy_auto_p records what 'auto' printed. All-zero differences make SciPy
  raise ValueError; the case records error = true.
- rank: SciPy 1.10's rankdata returns all NaN for an array holding both
  +inf and -inf; the one such case is ranked with the infinities replaced by
  +-1e300 (see rank_cases).
- studentized range: Nemenyi's q_alpha is
  scipy.stats.studentized_range.ppf(1 - alpha, k, inf) / sqrt(2). The
  distribution function P(Q <= q) = k int phi(z) (Phi(z) - Phi(z-q))^(k-1) dz
  comes from mpmath (1.2.1) quadrature at 30 digits, because SciPy's
  studentized_range.cdf is off by up to ~2e-10 relative where it is tiny
  (k = 20, q = 0.5: 1.7949944909781e-13 against 1.7949944905431e-13); the
  script checks that SciPy agrees with mpmath to 1e-8 relative.
- holm: statsmodels is not installed here, so holm_statsmodels below writes
  out statsmodels' multipletests(p, method='holm') (statsmodels 0.14,
  stats/multitest.py): sort p increasingly, multiply the i-th (0-based) by
  m - i, take the running maximum, cap at 1, and put back in input order.

Floats are written as repr strings ('nan' and 'inf' included) so they
round-trip exactly.
"""
import json
import os
import warnings
from fractions import Fraction

import mpmath
import numpy as np
import scipy
from scipy import stats

assert scipy.__version__ == "1.10.1", scipy.__version__

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden.json")


def fl(v):
    return repr(float(v))


def fls(a):
    return [fl(v) for v in np.ravel(a)]


def table(a):
    return [fls(row) for row in np.asarray(a, dtype=float)]


# ---------------------------------------------------------------- rank

def rank_cases():
    rng = np.random.default_rng(1)
    cases = {
        "distinct": [3.0, 1.0, 2.0, 5.0, 4.0],
        "ties": [2.0, 1.0, 2.0, 3.0, 1.0, 2.0, 7.0],
        "all_equal": [0.5] * 6,
        "single": [4.2],
        "empty": [],
        "signed_zero_and_inf": [0.0, -0.0, np.inf, 1.0, np.inf, -1.0],
        "neg_inf": [-np.inf, 2.0, -np.inf, -3.0],
        "nan_propagates": [1.0, np.nan, 2.0, 2.0],
        "random_rounded_40": list(np.round(rng.normal(size=40), 1)),
    }
    out = []
    for name, x in cases.items():
        out.append({"name": name, "x": fls(x),
                    "want": fls(stats.rankdata(np.asarray(x, dtype=float)))})
    # SciPy 1.10's rankdata returns all NaN for an array holding both +inf
    # and -inf (it looks for NaN in the array's sum, which is then NaN).
    # Package stats ranks them; the golden ranks are rankdata's with the
    # infinities replaced by finite values beyond every other (same order).
    x = np.array([0.0, np.inf, -np.inf, 1.0, np.inf, -1.0, -np.inf])
    assert np.all(np.isnan(stats.rankdata(x)))
    out.append({"name": "mixed_infinities", "x": fls(x),
                "want": fls(stats.rankdata(np.clip(x, -1e300, 1e300)))})
    return out


# ---------------------------------------------------------------- friedman

def row_ranks(scores, higher_better):
    s = np.asarray(scores, dtype=float)
    key = -s if higher_better else s
    return np.array([stats.rankdata(r) for r in key])


def friedman_by_hand(ranks):
    """scipy.stats.friedmanchisquare's formula on ready-made ranks."""
    n, k = ranks.shape
    ties = 0.0
    for r in ranks:
        _, counts = np.unique(r, return_counts=True)
        ties += float(np.sum(counts * (counts * counts - 1)))
    c = 1 - ties / (k * (k * k - 1) * n)
    ssbn = np.sum(ranks.sum(axis=0) ** 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (12.0 / (k * n * (k + 1)) * ssbn - 3 * n * (k + 1)) / c


def friedman_exact(ranks):
    """chisq and Iman-Davenport F as Fractions (None when undefined)."""
    n, k = ranks.shape
    R = [Fraction(0)] * k
    ties = Fraction(0)
    for r in ranks:
        fr = [Fraction(float(v)) for v in r]  # multiples of 1/2: exact
        for j in range(k):
            R[j] += fr[j]
        _, counts = np.unique(r, return_counts=True)
        ties += sum(int(t) * (int(t) ** 2 - 1) for t in counts)
    c = 1 - ties / (k * (k * k - 1) * n)
    if c == 0:
        return None, None
    ss = sum((Rj - Fraction(n * (k + 1), 2)) ** 2 for Rj in R)
    chisq = Fraction(12, n * k * (k + 1)) * ss / c
    den = n * (k - 1) - chisq
    F = None if den == 0 else (n - 1) * chisq / den
    return chisq, F


def friedman_case(name, scores, higher_better):
    s = np.asarray(scores, dtype=float)
    n, k = s.shape
    ranks = row_ranks(s, higher_better)
    avg = ranks.mean(axis=0)
    hand = friedman_by_hand(ranks)
    if k >= 3:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            res = stats.friedmanchisquare(*s.T)
        chisq, p, source = res.statistic, res.pvalue, "scipy.stats.friedmanchisquare"
        assert (np.isnan(chisq) and np.isnan(hand)) or abs(chisq - hand) <= 1e-12 * max(1, abs(chisq)), (name, chisq, hand)
    else:
        chisq = hand
        p = stats.chi2.sf(chisq, k - 1)
        source = "formula of friedmanchisquare (SciPy needs k >= 3), chi2.sf"
    ex_chisq, ex_F = friedman_exact(ranks)
    case = {"name": name, "scores": table(s), "higher_better": higher_better,
            "ranks": table(ranks), "avg_rank": fls(avg), "source": source,
            "chisq": fl(chisq), "p": fl(p)}
    if ex_chisq is None:
        assert np.isnan(chisq) and np.isnan(p), (name, chisq, p)
        case.update(degenerate=True, f=fl(np.nan), pf=fl(np.nan))
        return case
    assert abs(float(ex_chisq) - chisq) <= 1e-12 * max(1, abs(chisq)), (name, float(ex_chisq), chisq)
    if ex_F is None:
        F, pf = np.inf, 0.0
    else:
        F = float(ex_F)
        pf = stats.f.sf(F, k - 1, (k - 1) * (n - 1))
    case.update(degenerate=False, f=fl(F), pf=fl(pf))
    return case


# The R1STM paper's Table 3 as printed (rounded): 9 data sets (Banana, DSA,
# GSAOS, PAMAP2, UHAD, USFG32, USFG64, USFG128, CASIAA) x 5 methods in the
# table's column order H1SVM, DRDAE, R1SVM, 1STM, R1STM. Rounding to two
# decimals leaves many ties, which is what makes it a useful case.
R1STM_AUC = [
    [0.78, 0.98, 0.98, 0.93, 0.98],
    [0.84, 0.98, 0.98, 0.98, 0.99],
    [0.83, 0.98, 0.99, 0.96, 0.99],
    [0.90, 0.96, 0.96, 0.97, 0.98],
    [0.85, 0.96, 0.96, 0.95, 0.99],
    [0.86, 0.97, 0.96, 0.93, 0.99],
    [0.87, 0.97, 0.97, 0.94, 0.99],
    [0.88, 0.97, 0.97, 0.96, 0.99],
    [0.81, 0.98, 0.96, 0.95, 0.98],
]
R1STM_TRAIN = [
    [4.77e5, 7.69e2, 3.21, 12.43, 2.11],
    [8.04e3, 6.15e2, 0.56, 0.27, 0.09],
    [1.70e3, 3.49e2, 0.21, 0.45, 0.05],
    [2.07e5, 4.87e2, 1.38, 2.72, 0.51],
    [2.97e4, 2.05e2, 0.10, 0.41, 0.14],
    [2.23e5, 4.83e2, 1.62, 7.32, 1.36],
    [2.94e5, 5.08e2, 1.69, 8.01, 1.52],
    [4.18e5, 5.63e2, 1.83, 8.12, 1.71],
    [5.32e5, 1.21e3, 6.06, 18.21, 3.01],
]


def friedman_cases():
    rng = np.random.default_rng(2)
    out = []
    out.append(friedman_case("k2_n5_continuous", rng.uniform(size=(5, 2)), True))
    out.append(friedman_case("k2_n12_ties", rng.integers(0, 2, size=(12, 2)), True))
    out.append(friedman_case("k3_n10_continuous", rng.uniform(size=(10, 3)), True))
    out.append(friedman_case("k3_n2_minimal", rng.uniform(size=(2, 3)), False))
    out.append(friedman_case("k4_n14_heavy_ties", rng.integers(0, 3, size=(14, 4)), True))
    x = np.round(rng.uniform(0.6, 1.0, size=(9, 5)), 1)
    out.append(friedman_case("k5_n9_rounded_ties_higher", x, True))
    out.append(friedman_case("k5_n9_rounded_ties_lower", x, False))
    # A strong effect: method j gets +0.05 j, so p is small.
    base = rng.uniform(size=(20, 6)) * 0.1 + 0.05 * np.arange(6)
    out.append(friedman_case("k6_n20_strong_effect", base, True))
    out.append(friedman_case("k7_n25_continuous", rng.normal(size=(25, 7)), False))
    out.append(friedman_case("k8_n16_ties", np.round(rng.normal(size=(16, 8)), 0), True))
    out.append(friedman_case("k10_n30_continuous", rng.uniform(size=(30, 10)), True))
    out.append(friedman_case("k10_n12_ties", rng.integers(0, 4, size=(12, 10)), False))
    # Some rows all tied, others not.
    x = rng.uniform(size=(8, 4))
    x[[1, 4, 6]] = 0.5
    out.append(friedman_case("k4_n8_some_rows_all_tied", x, True))
    # Every row ranks the methods the same way: Iman-Davenport's F is +inf.
    x = np.sort(rng.uniform(size=(7, 5)), axis=1)
    out.append(friedman_case("k5_n7_identical_order", x, True))
    # The same ranking with ties in every row: F still +inf.
    out.append(friedman_case("k4_n6_identical_order_ties", np.tile([1.0, 2.0, 2.0, 3.0], (6, 1)), False))
    # Nothing to test: every score equal.
    out.append(friedman_case("k4_n6_all_equal", np.full((6, 4), 0.9), True))
    out.append(friedman_case("k2_n5_all_equal", np.full((5, 2), 1.0), True))
    out.append(friedman_case("r1stm_table3_auc", R1STM_AUC, True))
    out.append(friedman_case("r1stm_table3_train_time", R1STM_TRAIN, False))
    return out


# ---------------------------------------------------------------- wilcoxon

def has_ties(d):
    a = np.abs(d[d != 0])
    return len(np.unique(a)) != len(a)


def wilcoxon_case(name, x, y, note):
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    d = x - y
    zeros = int(np.sum(d == 0))
    case = {"name": name, "note": note, "x": fls(x), "y": fls(y),
            "zeros": zeros, "n": int(len(d) - zeros)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        if zeros == len(d):
            try:
                stats.wilcoxon(x, y)
            except ValueError as e:
                case.update(error=True, scipy_error=str(e))
                return case
            raise AssertionError("SciPy accepted all-zero differences")
        auto = stats.wilcoxon(x, y)
        wplus = stats.wilcoxon(x, y, alternative="greater").statistic
        wminus = stats.wilcoxon(y, x, alternative="greater").statistic
        exact = len(d) <= 50 and zeros == 0 and not has_ties(d)
        if exact:
            p = auto.pvalue
            z = np.nan
        else:
            ap = stats.wilcoxon(x, y, method="approx")
            p, z = ap.pvalue, abs(ap.zstatistic)
    assert min(wplus, wminus) == auto.statistic
    case.update(error=False, exact=bool(exact), w_plus=fl(wplus), w_minus=fl(wminus),
                p=fl(p), z_abs=fl(z), scipy_auto_p=fl(auto.pvalue))
    return case


def wilcoxon_cases():
    rng = np.random.default_rng(3)
    out = []

    def cont(n, shift=0.0):
        x = rng.uniform(size=n)
        return x, x - shift + rng.normal(scale=0.1, size=n)

    for n in (5, 6, 8, 10, 13, 20, 25, 30):
        x, y = cont(n, 0.03)
        out.append(wilcoxon_case(f"n{n}_continuous", x, y, "exact, no ties"))
    out.append(wilcoxon_case("n5_all_positive", [5, 4, 3, 2, 1.5], [0, 0, 0, 0, 0],
                             "exact, smallest p for n=5 (2/32)"))
    out.append(wilcoxon_case("n3_centre", [1, 2, 0], [0, 0, 3],
                             "exact, W+ = 3 is the centre: p = 1"))
    out.append(wilcoxon_case("n4_odd_total_near_centre", [1, 0, 3, 0], [0, 2, 0, 4],
                             "exact, total 10, W+ = 4, centre 5"))
    out.append(wilcoxon_case("n30_all_positive", np.arange(1, 31) * 0.01 + 1, np.ones(30),
                             "exact, p = 2/2^30"))
    x, y = cont(50, 0.01)
    out.append(wilcoxon_case("n50_continuous", x, y, "exact at the limit n = 50"))
    x, y = cont(51, 0.01)
    out.append(wilcoxon_case("n51_continuous", x, y, "normal approximation above 50"))
    out.append(wilcoxon_case("n51_all_positive", np.arange(1, 52) + 0.5, np.zeros(51),
                             "normal approximation, small p"))
    x, y = cont(10, 0.02)
    y[[2, 7]] = x[[2, 7]]
    out.append(wilcoxon_case("n10_two_zeros", x, y, "zeros force the normal approximation"))
    x, y = cont(20, 0.02)
    y[[0, 5, 9]] = x[[0, 5, 9]]
    y[3] = x[3] - (x[1] - y[1])  # |d_3| = |d_1|: a tie
    out.append(wilcoxon_case("n20_zeros_and_ties", x, y, "zeros and a tie"))
    # Ties without zeros: SciPy 1.10's 'auto' goes exact with int(W+).
    x = np.round(rng.uniform(0.7, 1.0, size=12), 2)
    y = x + rng.choice([-0.02, -0.01, 0.01, 0.02, 0.03], size=12)
    out.append(wilcoxon_case("n12_ties_no_zeros", x, y, "ties force the normal approximation"))
    out.append(wilcoxon_case("n8_ties_half_ranks", [1, 2, 3, 4, 5, 6, 7, 8], [0, 1, 2, 3, 4, 5, 9, 10],
                             "|d| = 1 six times, W+ = 21, W- = 15: ties, normal approximation"))
    x = np.round(rng.uniform(0.5, 1.0, size=30), 2)
    y = np.round(x + rng.normal(0.01, 0.03, size=30), 2)
    out.append(wilcoxon_case("n30_rounded_auc", x, y, "rounded AUCs: zeros and ties"))
    x = np.round(rng.uniform(size=60), 1)
    y = np.round(rng.uniform(size=60), 1)
    out.append(wilcoxon_case("n60_ties_zeros", x, y, "normal approximation, heavy ties"))
    out.append(wilcoxon_case("n7_all_zero", np.ones(7), np.ones(7),
                             "every difference zero: SciPy raises ValueError"))
    out.append(wilcoxon_case("n6_one_nonzero", [1, 1, 1, 1, 1, 2], [1, 1, 1, 1, 1, 1],
                             "five zeros, one difference"))
    auc = np.asarray(R1STM_AUC)
    out.append(wilcoxon_case("r1stm_table3_auc_R1STM_vs_1STM", auc[:, 4], auc[:, 3],
                             "paper's rounded AUCs"))
    out.append(wilcoxon_case("r1stm_table3_auc_R1SVM_vs_DRDAE", auc[:, 2], auc[:, 1],
                             "paper's rounded AUCs: many zeros"))
    tr = np.asarray(R1STM_TRAIN)
    out.append(wilcoxon_case("r1stm_table3_train_R1STM_vs_R1SVM", tr[:, 4], tr[:, 2],
                             "paper's training times: exact, W+ = 1 (UHAD)"))
    return out


# ---------------------------------------------------------------- pairwise

def holm_statsmodels(p):
    """statsmodels.stats.multitest.multipletests(p, method='holm')[1]."""
    p = np.asarray(p, dtype=float)
    order = np.argsort(p)
    ps = p[order]
    m = len(p)
    corrected = np.maximum.accumulate(ps * np.arange(m, 0, -1))
    corrected[corrected > 1] = 1
    out = np.empty(m)
    out[order] = corrected
    return out


def pairwise_case(name, scores):
    s = np.asarray(scores, dtype=float)
    k = s.shape[1]
    pairs = []
    for i in range(k):
        for j in range(i + 1, k):
            c = wilcoxon_case(f"{i}-{j}", s[:, i], s[:, j], "")
            pairs.append({"i": i, "j": j, "w_plus": c["w_plus"], "w_minus": c["w_minus"],
                          "p": c["p"], "exact": c["exact"]})
    holm = holm_statsmodels([float(q["p"]) for q in pairs])
    for q, h in zip(pairs, holm):
        q["p_holm"] = fl(h)
    return {"name": name, "scores": table(s), "pairs": pairs}


def pairwise_cases():
    rng = np.random.default_rng(4)
    base = rng.uniform(size=(12, 4)) * 0.2 + np.array([0.0, 0.05, 0.1, 0.3])
    return [pairwise_case("k4_n12_shifted", base),
            pairwise_case("r1stm_table3_auc", R1STM_AUC),
            pairwise_case("r1stm_table3_train_time", R1STM_TRAIN)]


# ---------------------------------------------------------------- holm

def holm_cases():
    rng = np.random.default_rng(5)
    cases = {
        "single": [0.03],
        "sorted": [0.001, 0.01, 0.02, 0.04, 0.3],
        "unsorted": [0.3, 0.04, 0.001, 0.2, 0.01, 0.02],
        "ties": [0.01, 0.04, 0.01, 0.04, 0.5, 0.01],
        "capped_at_one": [0.6, 0.9, 0.7, 0.3],
        "zeros_and_ones": [0.0, 1.0, 0.0, 0.5, 1.0],
        "non_monotone": [0.001, 0.0101, 0.0102, 0.0103, 0.9],
        "random_45": list(rng.uniform(size=45) ** 3),
    }
    return [{"name": n, "p": fls(p), "want": fls(holm_statsmodels(p))} for n, p in cases.items()]


# ---------------------------------------------------------------- studentized range

def nemenyi_cases():
    q = []
    for alpha in (0.05, 0.10, 0.01):
        for k in range(2, 31):
            v = stats.studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2)
            q.append({"k": k, "alpha": fl(alpha), "q": fl(v)})
    cdf = []
    mpmath.mp.dps = 30
    for k in (2, 3, 5, 10, 20):
        for x in (0.5, 1.0, 2.0, 3.0, 4.5, 6.0):
            f = lambda z: k * mpmath.npdf(z) * (mpmath.ncdf(z) - mpmath.ncdf(z - x)) ** (k - 1)
            v = float(mpmath.quad(f, [-mpmath.inf, -5, -2, 0, x / 2, 2, 5, mpmath.inf]))
            sp = stats.studentized_range.cdf(x, k, np.inf)
            assert abs(sp - v) <= 1e-8 * v, (k, x, sp, v)
            cdf.append({"k": k, "q": fl(x), "cdf": fl(v), "scipy_cdf": fl(sp)})
    cd = []
    for k, n, alpha in ((2, 5, 0.05), (5, 9, 0.05), (5, 9, 0.10), (10, 30, 0.05), (20, 14, 0.10)):
        v = stats.studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2) * np.sqrt(k * (k + 1) / (6 * n))
        cd.append({"k": k, "n": n, "alpha": fl(alpha), "cd": fl(v)})
    return {"q": q, "cdf": cdf, "cd": cd}


def main():
    golden = {
        "generator": "stats/testdata/make_golden.py, SciPy %s, NumPy %s, mpmath %s" % (
            scipy.__version__, np.__version__, mpmath.__version__),
        "rank": rank_cases(),
        "friedman": friedman_cases(),
        "wilcoxon": wilcoxon_cases(),
        "pairwise": pairwise_cases(),
        "holm": holm_cases(),
        "nemenyi": nemenyi_cases(),
    }
    with open(OUT, "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
