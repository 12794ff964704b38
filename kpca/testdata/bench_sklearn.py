#!/usr/bin/python3
"""scikit-learn side of kpca's BenchmarkFit: KernelPCA(n_components=50,
kernel='rbf', gamma=scale) fit on the first n of the 7,000 training rows of
the seed-1 ADBench split of 10_cover (shared/anchors/peers.py's make_split,
which dataset.SplitADBench reproduces), eigen_solver 'auto' (dense eigh for
these sizes, as in the anchors) and 'arpack'. Prints the best of 3
wall-clock fits (1 for n = 5000), in seconds.

    /usr/bin/python3 kpca/testdata/bench_sklearn.py
"""
import os
import time
import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler
from sklearn.decomposition import KernelPCA

HERE = os.path.dirname(os.path.abspath(__file__))


def cover_train():
    """The 7,000 min-max scaled training rows of the seed-1 split of 10_cover."""
    z = np.load(os.path.join(HERE, "..", "..", "..", "shared", "data", "adbench", "10_cover.npz"))
    X, y = z["X"].astype(np.float64), z["y"].astype(np.int64).ravel()
    X, _, y, _ = train_test_split(X, y, train_size=10000, stratify=y, random_state=1)
    Xtr, _, _, _ = train_test_split(X, y, test_size=0.3, stratify=y, random_state=1)
    return MinMaxScaler().fit(Xtr).transform(Xtr)


if __name__ == "__main__":
    Xtr = cover_train()
    for n in (1000, 2500, 5000):
        x = Xtr[:n]
        g = 1.0 / (x.shape[1] * x.var())
        for solver in ("auto", "arpack"):
            times = []
            for _ in range(1 if n == 5000 else 3):
                t0 = time.perf_counter()
                KernelPCA(n_components=50, kernel="rbf", gamma=g, eigen_solver=solver, random_state=0).fit(x)
                times.append(time.perf_counter() - t0)
            print("%-7s n=%5d  %7.2f s" % (solver, n, min(times)), flush=True)
