#!/usr/bin/python3
"""Golden indices for dataset.SklearnStratifiedSplit / SplitADBench.

Runs scikit-learn's train_test_split exactly as shared/anchors/peers.py does
(10,000-row stratified subsample when larger, then test_size=0.3, both with
random_state=seed) on row indices, and records the original row index of
every train and test row, in order, for a few data sets and seeds.
Usage: /usr/bin/python3 make_sksplit_golden.py ../../../shared/data/adbench > sksplit_golden.json
"""
import json, sys, numpy as np, sklearn
from sklearn.model_selection import train_test_split

root = sys.argv[1]
out = {"sklearn": sklearn.__version__, "numpy": np.__version__, "cases": []}
for name in ["38_thyroid", "6_cardio", "32_shuttle"]:
    with np.load(f"{root}/{name}.npz") as z:
        y = np.asarray(z["y"]).astype(np.int64).ravel()
    for seed in [1, 2, 3]:
        idx = np.arange(len(y))
        yy = y
        if len(y) > 10000:
            idx, _, yy, _ = train_test_split(idx, y, train_size=10000, stratify=y, random_state=seed)
        tr, te, _, _ = train_test_split(idx, yy, test_size=0.3, stratify=yy, random_state=seed)
        out["cases"].append({"file": name + ".npz", "seed": seed,
                             "train": tr.tolist(), "test": te.tolist()})
json.dump(out, sys.stdout)
