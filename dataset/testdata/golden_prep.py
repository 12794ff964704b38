#!/usr/bin/python3
"""Golden values for the stratified split (scikit-learn 1.2.1).

Run from the repository root:  /usr/bin/python3 dataset/testdata/golden_prep.py
Writes dataset/testdata/golden_prep.json.
"""
import json, os
import numpy as np
from sklearn.model_selection import train_test_split

out = {}

# Per-class sizes of the train part of train_test_split(stratify=y); the
# cases avoid ties in the fractional parts, where scikit-learn breaks ties
# at random.
cases = []
for counts, kw in [([1655, 176], {"test_size": 0.3}),          # cardio
                   ([3679, 93], {"test_size": 0.3}),           # thyroid
                   ([45586, 3511], {"train_size": 10000}),     # shuttle subsample
                   ([10, 7, 3], {"test_size": 0.25}),
                   ([100, 2], {"test_size": 0.3}),
                   ([50, 30, 20], {"test_size": 0.3})]:
    y = np.concatenate([np.full(c, k) for k, c in enumerate(counts)])
    tr, te = train_test_split(np.arange(len(y)), stratify=y, random_state=0, **kw)
    cases.append({"counts": counts, "kw": kw,
                  "train": [int((y[tr] == k).sum()) for k in range(len(counts))],
                  "test": [int((y[te] == k).sum()) for k in range(len(counts))]})
out["split"] = cases
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden_prep.json"), "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
