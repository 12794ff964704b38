#!/usr/bin/python3
"""scikit-learn side of kpca's BenchmarkGrid (issue 13, must-show 2):
KernelPCA(kernel='rbf', gamma=scale) fit on the first n (5,000 and 7,000)
of the 7,000 training rows of the seed-1 ADBench split of 10_cover, with
n_components q = 5, 20, 50 and 9 (the count this project's default rule,
explained variance 0.5, keeps there), for each eigen_solver: 'dense',
'arpack' and 'randomized' (random_state=0). Prints the best wall-clock fit
of 2 (1 for dense), in seconds.

    /usr/bin/python3 kpca/testdata/bench_grid.py
"""
import os
import time
import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler
from sklearn.decomposition import KernelPCA

HERE = os.path.dirname(os.path.abspath(__file__))
z = np.load(os.path.join(HERE, "..", "..", "..", "shared", "data", "adbench", "10_cover.npz"))
X, y = z["X"].astype(np.float64), z["y"].astype(np.int64).ravel()
X, _, y, _ = train_test_split(X, y, train_size=10000, stratify=y, random_state=1)
Xtr, _, _, _ = train_test_split(X, y, test_size=0.3, stratify=y, random_state=1)
Xtr = MinMaxScaler().fit(Xtr).transform(Xtr)
for n in (5000, 7000):
    x = Xtr[:n]
    g = 1.0 / (x.shape[1] * x.var())
    for q in (5, 9, 20, 50):
        row = []
        for solver in ("dense", "arpack", "randomized"):
            best = 1e9
            for _ in range(1 if solver == "dense" else 2):
                t0 = time.perf_counter()
                KernelPCA(n_components=q, kernel="rbf", gamma=g, eigen_solver=solver,
                          random_state=0).fit(x)
                best = min(best, time.perf_counter() - t0)
            row.append("%s %.3f" % (solver, best))
        print("n=%d q=%d  %s" % (n, q, "  ".join(row)), flush=True)
