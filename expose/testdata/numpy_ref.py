#!/usr/bin/python3
"""NumPy/scikit-learn EXPoSE reference timing, side by side with
BenchmarkBatchFitScore (issue 2, must-show 5).

Same protocol and data as the Go benchmark: 32_shuttle, the ADBench split of
seed 1 (train_test_split exactly as shared/anchors/peers.py), MinMax scaling,
gamma = scale, RBFSampler(n_components=D, random_state=1); fit = transform
train + mean (as peers.py's expose_batch), score = transform test + dot.
Prints the median over 7 repetitions of fit, score and rows/s (train + test
rows per second of fit + score).
Usage: /usr/bin/python3 numpy_ref.py ../../../shared/data/adbench/32_shuttle.npz
"""
import sys, time, numpy as np
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler
from sklearn.kernel_approximation import RBFSampler

with np.load(sys.argv[1]) as z:
    X = np.asarray(z["X"], dtype=np.float64); y = np.asarray(z["y"]).astype(np.int64).ravel()
X, _, y, _ = train_test_split(X, y, train_size=10000, stratify=y, random_state=1)
Xtr, Xte, _, _ = train_test_split(X, y, test_size=0.3, stratify=y, random_state=1)
sc = MinMaxScaler().fit(Xtr); Xtr = np.ascontiguousarray(sc.transform(Xtr)); Xte = np.ascontiguousarray(sc.transform(Xte))
gamma = 1.0 / (Xtr.shape[1] * Xtr.var())
for D in (500, 2000, 4000, 8000):
    fits, scores = [], []
    for rep in range(7):
        t0 = time.perf_counter()
        rff = RBFSampler(gamma=gamma, n_components=D, random_state=1).fit(Xtr)
        w = rff.transform(Xtr).mean(axis=0)
        t1 = time.perf_counter()
        s = -(rff.transform(Xte) @ w)
        t2 = time.perf_counter()
        fits.append(t1 - t0); scores.append(t2 - t1)
    f, s_ = np.median(fits), np.median(scores)
    print(f"D={D}: fit {f:.4f} s, score {s_:.4f} s, {(len(Xtr)+len(Xte))/(f+s_):.0f} rows/s")
