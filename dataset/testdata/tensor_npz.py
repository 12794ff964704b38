#!/usr/bin/python3
"""Synthetic tensor files for timing `anomaly fit --method r1stm|1stm`.

    /usr/bin/python3 dataset/testdata/tensor_npz.py OUT.npz N [SEED]

Writes N samples of shape 12 x 10 x 8 in the layout of the tensor files the
CLI reads (see dataset/doc.go): X float64 of shape (N, 12, 10, 8) in C
order, y int64 class indices (all 0: one normal class), with np.savez, so
the members are stored uncompressed (N = 6,400 gives a 49 MB file, 25,600 a
197 MB one). Each sample is a rank-2 CP tensor with N(0, 1) factor entries
plus 1% N(0, 1) noise, the construction of stm's BenchmarkScaling. The seed
(default 1) fixes every draw.
"""
import sys
import numpy as np


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    rng = np.random.default_rng(seed)
    shape, rank = (12, 10, 8), 2
    a = rng.standard_normal((n, rank, shape[0]))
    b = rng.standard_normal((n, rank, shape[1]))
    c = rng.standard_normal((n, rank, shape[2]))
    X = np.einsum("nri,nrj,nrk->nijk", a, b, c)
    X += 0.01 * rng.standard_normal(X.shape)
    np.savez(out, X=np.ascontiguousarray(X), y=np.zeros(n, dtype=np.int64))


if __name__ == "__main__":
    main()
