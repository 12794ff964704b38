#!/usr/bin/python3
"""scikit-learn side of kde's BenchmarkScore: KernelDensity(gaussian,
bandwidth='scott') scoring the 3,000 test rows of the seed-1 ADBench split of
10_cover against its first n of 7,000 training rows, rtol = 0 (algorithm
auto = kd_tree, and ball_tree) and rtol = 1e-4. The split is
shared/anchors/peers.py's make_split (dataset.SplitADBench reproduces it).
Prints the best of 3 wall-clock runs of score_samples, in ms.

    /usr/bin/python3 kde/testdata/bench_sklearn.py
"""
import os
import sys
import time
import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler
from sklearn.neighbors import KernelDensity

HERE = os.path.dirname(os.path.abspath(__file__))
z = np.load(os.path.join(HERE, "..", "..", "..", "shared", "data", "adbench", "10_cover.npz"))
X, y = z["X"].astype(np.float64), z["y"].astype(np.int64).ravel()
X, _, y, _ = train_test_split(X, y, train_size=10000, stratify=y, random_state=1)
Xtr, Xte, _, _ = train_test_split(X, y, test_size=0.3, stratify=y, random_state=1)
sc = MinMaxScaler().fit(Xtr)
Xtr, Xte = sc.transform(Xtr), sc.transform(Xte)
for n in (1750, 3500, 7000):
    for name, kw in (("auto(kd_tree)_rtol0", {}), ("ball_tree_rtol0", {"algorithm": "ball_tree"}),
                     ("auto(kd_tree)_rtol1e-4", {"rtol": 1e-4}), ("ball_tree_rtol1e-4", {"algorithm": "ball_tree", "rtol": 1e-4})):
        m = KernelDensity(kernel="gaussian", bandwidth="scott", **kw).fit(Xtr[:n])
        best = min((lambda t0: (m.score_samples(Xte), time.perf_counter() - t0)[1])(time.perf_counter()) for _ in range(3))
        print("%-24s n=%5d  %8.1f ms" % (name, n, best * 1e3), flush=True)
