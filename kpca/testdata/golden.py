#!/usr/bin/python3
"""Golden kernel PCA reconstruction errors for package kpca.

Rows: the first 500 training rows and the 300 test rows of cardio, seed 1 of
the ADBench protocol as written by kde's TestWriteGoldenSplit (our Go split).
Writes train.npy (500 x 21), test.npy (300 x 21) and golden.npy: a 2 x 300
array, row 0 the test scores and row 1 the first 300 training scores, for
the RBF kernel with gamma = scale = 1/(d * Var(train)) and q = 50 components,
evaluated directly with NumPy (the formula of shared/anchors/peers.py,
Hoffmann 2007):

    ||phi~(x)||^2 = k(x,x) - 2/n sum_i k(x,x_i) + 1/n^2 sum_ij k(x_i,x_j)
    k~(x)_i       = k(x,x_i) - 1/n sum_j k(x,x_j) - 1/n sum_j k(x_i,x_j)
                    + 1/n^2 sum_jl k(x_j,x_l)
    z_j(x)        = k~(x) . u_j / sqrt(lambda_j)
    score(x)      = ||phi~(x)||^2 - sum_j z_j(x)^2

with (lambda_j, u_j) the top-50 eigenpairs of the centred Gram matrix from
numpy.linalg.eigh. As a cross-check, z agrees with scikit-learn's
KernelPCA(n_components=50, kernel='rbf', gamma=gamma).transform up to sign.

    /usr/bin/python3 kpca/testdata/golden.py     # from the repository root
"""
import os
import numpy as np
from sklearn.decomposition import KernelPCA

HERE = os.path.dirname(os.path.abspath(__file__))
KDE = os.path.join(HERE, "..", "..", "kde", "testdata")
tr = np.load(os.path.join(KDE, "6_cardio_train.npy"))[:500]
te = np.load(os.path.join(KDE, "6_cardio_test.npy"))
np.save(os.path.join(HERE, "train.npy"), tr)
np.save(os.path.join(HERE, "test.npy"), te)

n, d = tr.shape
q = 50
gamma = 1.0 / (d * tr.var())


def rbf(a, b):
    d2 = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2 * a @ b.T
    return np.exp(-gamma * np.maximum(d2, 0))


K = rbf(tr, tr)
col = K.mean(0)
grand = K.mean()
Kc = K - col[None, :] - col[:, None] + grand
lam, U = np.linalg.eigh(Kc)
lam, U = lam[::-1][:q], U[:, ::-1][:, :q]
assert lam[-1] > n * np.finfo(float).eps * lam[0], "rank cutoff would bind"
A = U / np.sqrt(lam)


def scores(X):
    Kx = rbf(X, tr)
    rm = Kx.mean(1)
    Kxc = Kx - rm[:, None] - col[None, :] + grand
    Z = Kxc @ A
    return (1.0 - 2 * rm + grand) - (Z * Z).sum(1), Z


s_te, Z = scores(te)
s_tr, _ = scores(tr[:300])
np.save(os.path.join(HERE, "golden.npy"), np.vstack([s_te, s_tr]))
sk = KernelPCA(n_components=q, kernel="rbf", gamma=gamma).fit(tr).transform(te)
print("gamma", gamma, "lambda_1", lam[0], "lambda_50", lam[-1],
      "explained", lam.sum() / np.trace(Kc))
print("max |abs(z_sklearn) - abs(z)|", np.abs(np.abs(sk) - np.abs(Z)).max())
print("test scores", s_te.min(), s_te.max())
