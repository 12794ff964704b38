#!/usr/bin/python3
"""Golden values for the scalers (scikit-learn 1.2.1).

Run from the repository root:  /usr/bin/python3 scale/testdata/golden_scalers.py
Writes scale/testdata/golden_scalers.json.

Columns 1 and 3 of the training data have a non-zero IQR; columns 2 and 3
are constant (IQR 0 and standard deviation 0), where scale.Robust divides
by 1 as RobustScaler does. Where the IQR is 0 but the standard deviation
is not, scale.Robust deliberately differs from RobustScaler (it divides by
the standard deviation, not by 1): scale_test.go checks that by formula.
"""
import json, os
import numpy as np
from sklearn.preprocessing import MinMaxScaler, StandardScaler, MaxAbsScaler, RobustScaler

train = np.array([[1.0, 5.0, 0.0, -2.0],
                  [3.0, 5.0, 0.0, 4.0],
                  [-2.0, 5.0, 0.0, 1.0],
                  [0.5, 5.0, 0.0, 0.0]])
test = np.array([[4.0, 6.0, 1.0, -3.0],
                 [0.0, 5.0, 0.0, 2.0]])
out = {"train": train.tolist(), "test": test.tolist(), "scalers": {}}
for name, s in [("minmax", MinMaxScaler()), ("standard", StandardScaler()),
                ("standard_nocenter", StandardScaler(with_mean=False)), ("maxabs", MaxAbsScaler()),
                ("robust", RobustScaler()), ("robust_nocenter", RobustScaler(with_centering=False))]:
    s.fit(train)
    out["scalers"][name] = {"train": s.transform(train).tolist(), "test": s.transform(test).tolist()}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden_scalers.json"), "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
