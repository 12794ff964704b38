#!/usr/bin/python3
"""Dump the exact problems of ../shared/anchors/cpals_ref.py as .npy files,
so the Go benchmark BenchmarkReferenceProblems (cpd/ref_bench_test.go) times
cpd on the very tensors the NumPy reference times.

Run from the repository root:
    /usr/bin/python3 cpd/testdata/cpals_problems.py /tmp/cpals_problems
    ANOMALY_CPALS_PROBLEMS=/tmp/cpals_problems go test -run XXX \
        -bench ReferenceProblems -benchtime 3x ./cpd/

Writes (not committed: about 100 MB):
  a_normal_{r}.npy  r = 0..9   problem (a), N(0,1) factors, data seed 1000+r
  a_uniform_{r}.npy            problem (a), uniform [0,1) factors
  b.npy                        problem (b), shape (500, 125, 45), data seed 7
The generation calls cpals_ref.make_problem with cpals_ref's seeds.
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "shared", "anchors"))
import cpals_ref  # noqa: E402


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/cpals_problems"
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    os.makedirs(out, exist_ok=True)
    for dist in ("normal", "uniform"):
        for r in range(reps):
            drng = np.random.RandomState(1000 + r)
            X, _ = cpals_ref.make_problem((100, 100, 100), 5, 0.01, drng, dist)
            np.save(os.path.join(out, "a_%s_%d.npy" % (dist, r)), np.ascontiguousarray(X))
    drng = np.random.RandomState(7)
    probs = [cpals_ref.make_problem((125, 45), 2, 0.01, drng, "normal")[0] for _ in range(500)]
    np.save(os.path.join(out, "b.npy"), np.ascontiguousarray(np.stack(probs)))


if __name__ == "__main__":
    main()
