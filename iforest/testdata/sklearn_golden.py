"""Golden scores of scikit-learn's IsolationForest for iforest's replay test.

Run with Debian's python3-sklearn (1.2.1, NumPy 1.24.2):
    /usr/bin/python3 sklearn_golden.py > sklearn_golden.json

The rows come from integer formulas with one correctly rounded division, so
Go builds bit-identical float64 values (iforest.goldenRows): a varying
feature, a constant one, one of 7 levels, one quadratic residue, one binary.
The sizes take each of scikit-learn's subsample paths for 256 rows: n <= 256
(all rows), n = 257 (reservoir sampling), 256/n in (0.01, 0.99) (a
permutation), n >= 25600 (tracking selection).
"""
import json
import sys

import numpy as np
import sklearn
from sklearn.ensemble import IsolationForest


def rows(n):
    X = np.empty((n, 5))
    for i in range(n):
        X[i, 0] = ((i * 7919 + 13) % 1009) / 37.0
        X[i, 1] = 2.5
        X[i, 2] = ((i * 104729) % 7) / 3.0
        X[i, 3] = ((i * i * 31 + i * 17) % 10007) / 101.0 - 40
        X[i, 4] = i % 2
    return X


cases = []
for n, seed in [(100, 0), (257, 1), (3000, 42), (3000, 7), (30000, 3)]:
    X = rows(n)
    f = IsolationForest(random_state=seed).fit(X)
    stride = max(1, n // 500)
    idx = list(range(0, n, stride))
    s = -f.score_samples(X[idx])
    t = f.estimators_[0].tree_
    cases.append({
        "n": n, "seed": seed, "stride": stride,
        "scores": [float(v) for v in s],
        "tree0": {"feature": [int(v) for v in t.feature],
                  "threshold": [float(v) for v in t.threshold],
                  "size": [int(v) for v in t.n_node_samples]},
    })
json.dump({"sklearn": sklearn.__version__, "numpy": np.__version__, "cases": cases}, sys.stdout)
