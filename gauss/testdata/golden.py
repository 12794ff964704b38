"""Golden values of gauss against scikit-learn (run with /usr/bin/python3
after `apt-get install -y python3-sklearn`).

For three small matrices (n > d, n < d, and a constant column) it prints,
as Go literals, the data, scikit-learn's LedoitWolf().fit(X).shrinkage_ and
its mahalanobis(X) (squared distances) of the rows of a query matrix.
"""
import numpy as np
from sklearn.covariance import LedoitWolf

rng = np.random.RandomState(7)
cases = {
    "tall": rng.randn(40, 5) @ rng.randn(5, 5),
    "wide": rng.randn(6, 10),
    "constant": np.column_stack([rng.randn(30, 3), np.full(30, 2.5)]),
}
for name, X in cases.items():
    Q = X[:4] + 0.5
    lw = LedoitWolf().fit(X)
    print("// %s" % name)
    print("{name: \"%s\", n: %d, d: %d," % (name, X.shape[0], X.shape[1]))
    print(" x: []float64{%s}," % ", ".join(repr(float(v)) for v in X.ravel()))
    print(" q: []float64{%s}," % ", ".join(repr(float(v)) for v in Q.ravel()))
    print(" shrinkage: %r," % float(lw.shrinkage_))
    print(" maha: []float64{%s}}," % ", ".join(repr(float(v)) for v in lw.mahalanobis(Q)))
