#!/usr/bin/python3
"""Write golden.json: scikit-learn's metrics on random, tie-heavy and
infinity-holding score vectors, for eval's tests.

Run from the repository root:  /usr/bin/python3 eval/testdata/make_golden.py
Made with scikit-learn 1.2.1 (Debian python3-sklearn), NumPy 1.24.

scikit-learn refuses infinite scores, so ±inf is replaced by a finite value
beyond every finite score before calling it (ranks, hence every metric, are
unchanged) and mapped back in the thresholds. roc_curve's leading extra
threshold is written as +inf (scikit-learn >= 1.3; 1.2 writes max+1).
Floats are written as repr strings ("inf" included) so they round-trip.
"""
import json
import os

import numpy as np
from sklearn.metrics import (average_precision_score, precision_recall_curve,
                             roc_auc_score, roc_curve)


def fl(a):
    return [repr(float(v)) for v in a]


def finite_copy(s):
    f = s[np.isfinite(s)]
    lo, hi = (f.min(), f.max()) if f.size else (0.0, 0.0)
    out = s.copy()
    out[s == np.inf] = hi + 1000.0
    out[s == -np.inf] = lo - 1000.0
    return out, hi + 1000.0, lo - 1000.0


def unmap(t, big, small):
    t = t.astype(float).copy()
    t[t == big] = np.inf
    t[t == small] = -np.inf
    return t


def precision_at_n(s, y, n):
    """Share of positives among the n top rows; the tie group at the cut
    counts with its expected share (ties broken at random)."""
    if n <= 0:
        n = int(y.sum())
    n = min(n, len(s))
    v = np.sort(s)[::-1][n - 1]          # the n-th highest score
    above = s > v
    tie = s == v
    a = int(above.sum())
    return (y[above].sum() + (n - a) * y[tie].mean()) / n


def case(name, s, y):
    s = np.asarray(s, dtype=float)
    y = np.asarray(y, dtype=int)
    sf, big, small = finite_copy(s)
    fpr, tpr, rthr = roc_curve(y, sf, drop_intermediate=False)
    rthr = unmap(rthr, big, small)
    rthr[0] = np.inf
    p, r, pthr = precision_recall_curve(y, sf)
    pthr = unmap(pthr, big, small)
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(p + r > 0, 2 * p * r / (p + r), 0.0)[:-1]
    best = f1.max()
    best_thr = pthr[np.nonzero(f1 >= best - 1e-12)[0].max()]  # highest threshold
    ns = sorted({0, 1, 3, len(s) // 2, len(s), len(s) + 5})
    return {
        "name": name,
        "scores": fl(s),
        "y": [int(v) for v in y],
        "auc_roc": roc_auc_score(y, sf),
        "average_precision": average_precision_score(y, sf),
        "roc_fpr": fl(fpr), "roc_tpr": fl(tpr), "roc_thr": fl(rthr),
        "pr_precision": fl(p), "pr_recall": fl(r), "pr_thr": fl(pthr),
        "best_f1": float(best), "best_f1_thr": repr(float(best_thr)),
        "precision_at_n": [{"n": n, "value": float(precision_at_n(s, y, n))} for n in ns],
    }


def labels(rng, n, rate):
    y = (rng.random(n) < rate).astype(int)
    y[0], y[1] = 1, 0          # both classes present
    rng.shuffle(y)
    return y


def main():
    rng = np.random.default_rng(20261122)
    cases = [case("two rows", [0.2, 0.7], [0, 1]),
             case("sklearn docs", [0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]),
             case("all tied", [1.0] * 6, [0, 1, 0, 0, 1, 0])]
    for n in (10, 100, 1000, 2000):
        y = labels(rng, n, 0.1)
        s = rng.normal(size=n) + 1.5 * y
        cases.append(case(f"random n={n}", s, y))
    for n in (10, 200, 3000):
        y = labels(rng, n, 0.2)
        s = np.round(rng.normal(size=n) + y, 0)   # few distinct values
        cases.append(case(f"ties n={n}", s, y))
    for n in (12, 500):
        y = labels(rng, n, 0.15)
        s = rng.normal(size=n) + y
        s[rng.choice(n, n // 6, replace=False)] = np.inf
        s[rng.choice(n, n // 10, replace=False)] = -np.inf
        s[0] = np.inf
        cases.append(case(f"inf n={n}", s, y))
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden.json")
    with open(out, "w") as f:
        json.dump({"made_by": "eval/testdata/make_golden.py, scikit-learn 1.2.1", "cases": cases}, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
