# Reference bandwidths from scikit-learn's KernelDensity (bare factors) and
# gamma='scale' from SVC's formula. Run: /usr/bin/python3 bandwidth_ref.py
# (scikit-learn 1.2.1). Output is pasted into bandwidth_test.go.
import numpy as np
import sklearn
from sklearn.neighbors import KernelDensity

print("# sklearn", sklearn.__version__)
for n, d in [(478, 9), (1281, 21), (7000, 3), (5322, 100), (7000, 9), (10, 1)]:
    X = np.random.default_rng(0).random((n, d))
    s = KernelDensity(bandwidth="scott").fit(X).bandwidth_
    v = KernelDensity(bandwidth="silverman").fit(X).bandwidth_
    print(f"{{{n}, {d}, {s!r}, {v!r}}},")
X = np.arange(12, dtype=float).reshape(4, 3) ** 1.5
print("scale", repr(1.0 / (X.shape[1] * X.var())))
