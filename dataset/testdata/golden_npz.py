#!/usr/bin/python3
"""Golden checksums of the shared .npz files, as numpy reads them.

Run from the repository root:  /usr/bin/python3 dataset/testdata/golden_npz.py
Writes dataset/testdata/golden_npz.json. For every file: the shape of X, the
shape Load gives (n, d) with d the product of the trailing dimensions, the
exact sums (math.fsum) of X and of X*k where k is the row-major index of the
value in the n x d matrix, and the sum of y.
"""
import json, math, os, sys
import numpy as np

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "data")
out = {}
for sub in ("adbench", "tensor"):
    d = os.path.join(root, sub)
    for name in sorted(os.listdir(d)):
        if not name.endswith(".npz"):
            continue
        z = np.load(os.path.join(d, name))
        X = z["X"]
        n = X.shape[0]
        flat = np.ascontiguousarray(X.astype(np.float64).reshape(n, -1)).ravel()
        idx = np.arange(flat.size, dtype=np.float64)
        rec = {
            "shape": list(X.shape),
            "dtype": X.dtype.str,
            "fortran": bool(X.flags.f_contiguous and not X.flags.c_contiguous),
            "rows": int(n),
            "cols": int(flat.size // n),
            "sum": math.fsum(flat.tolist()),
            "sum_index": math.fsum((flat * idx).tolist()),
        }
        if "y" in z.files:
            rec["y_sum"] = int(z["y"].astype(np.int64).sum())
            rec["y_dtype"] = z["y"].dtype.str
        out[sub + "/" + name] = rec
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden_npz.json"), "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
    f.write("\n")
print(len(out), "files")
