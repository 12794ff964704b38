#!/usr/bin/python3
"""Golden log-densities for package kde from scikit-learn's KernelDensity.

Reads the train/test rows written by TestWriteGoldenSplit
(ANOMALY_WRITE_GOLDEN=1 go test -run TestWriteGoldenSplit ./kde; seed 1 of the ADBench
protocol, our own Go split, so both sides see the same rows) and writes
<name>_golden.npy: a 12 x n_test array of KernelDensity.score_samples(test),
row 2*k + b for kernel k in KERNELS and bandwidth b in BANDWIDTHS, with
rtol = atol = 0 (exact) and the default tree (algorithm='auto').

One correction: for a test row with no training row within the bandwidth of a
finite-support kernel the density is exactly 0 (log-density -inf), but
scikit-learn's tree can return a finite value near log(n * 1e-16 * K) there:
the round-off left in its bound bookkeeping (logsubexp) at rtol = atol = 0
(kd_tree and ball_tree even disagree: thyroid row 212, epanechnikov/scott,
-31.86 vs -32.18 while the nearest training row is 0.488 > h = 0.455 away).
Those entries are set to -inf after a brute-force NumPy check that no
training row lies within h; the script prints how many. Every other entry is
also checked against the brute-force NumPy sum (to 1e-10 relative).

The cosine rows keep scikit-learn's normalising constant, which is wrong for
even d and inaccurate for larger d (sklearn's kernel_norm(1, 6, 'cosine')
times the true integral is 0.0045, not 1); the Go test swaps the package's
correct constant for scikit-learn's before comparing.

    /usr/bin/python3 kde/testdata/golden.py     # from the repository root
Made with scikit-learn 1.2.1, numpy 1.24.2 (Debian python3-sklearn).
"""
import os
import numpy as np
import sklearn
from sklearn.neighbors import KernelDensity
from sklearn.neighbors._kd_tree import kernel_norm

KERNELS = ["gaussian", "tophat", "epanechnikov", "exponential", "linear", "cosine"]
BANDWIDTHS = ["scott", "silverman"]
HERE = os.path.dirname(os.path.abspath(__file__))

for name in ["6_cardio", "38_thyroid"]:
    tr = np.load(os.path.join(HERE, name + "_train.npy"))
    te = np.load(os.path.join(HERE, name + "_test.npy"))
    out = np.empty((len(KERNELS) * len(BANDWIDTHS), te.shape[0]))
    for k, kern in enumerate(KERNELS):
        for b, bw in enumerate(BANDWIDTHS):
            m = KernelDensity(kernel=kern, bandwidth=bw, rtol=0, atol=0).fit(tr)
            sk = m.score_samples(te)
            h = m.bandwidth_
            r = np.sqrt(((te[:, None, :] - tr[None, :, :]) ** 2).sum(-1))
            u = r / h
            inside = u < 1
            prof = {"gaussian": np.exp(-0.5 * u * u), "tophat": inside * 1.0,
                    "epanechnikov": np.where(inside, 1 - u * u, 0),
                    "exponential": np.exp(-u), "linear": np.where(inside, 1 - u, 0),
                    "cosine": np.where(inside, np.cos(0.5 * np.pi * u), 0)}[kern]
            with np.errstate(divide="ignore"):
                brute = np.log(prof.sum(1)) + np.log(kernel_norm(h, tr.shape[1], kern)) - np.log(len(tr))
            fix = np.isfinite(sk) & ~inside.any(1) & (kern not in ("gaussian", "exponential"))
            ok = np.isfinite(brute)
            assert np.all(np.abs(sk[ok] - brute[ok]) <= 1e-10 * np.maximum(1, np.abs(brute[ok])))
            assert np.all(np.isfinite(sk) | ~ok)
            sk[fix] = -np.inf
            if fix.any():
                print("  set to -inf (no training row within h):", np.flatnonzero(fix))
            out[2 * k + b] = sk
            print(name, kern, bw, "h=%.6f" % m.bandwidth_,
                  "finite %d/%d" % (np.isfinite(out[2 * k + b]).sum(), te.shape[0]))
    np.save(os.path.join(HERE, name + "_golden.npy"), out)
print("sklearn", sklearn.__version__, "numpy", np.__version__)
