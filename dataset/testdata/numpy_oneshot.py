#!/usr/bin/python3
"""One-shot NumPy read of one BenchmarkLoad file, in a fresh process.

    /usr/bin/python3 dataset/testdata/numpy_oneshot.py FILE

The counterpart of dataset/testdata/loadfile: it imports NumPy, then times
one read of FILE into what dataset.Load returns, a row-major float64 array
(np.load, then np.ascontiguousarray(..., dtype=np.float64); for .npz the X
and y members; for .csv np.loadtxt), and prints the time in ms. Run it
several times, alternating with loadfile, and compare the medians; the
process is fresh each time, so the array's memory comes from the operating
system, as it does for a command line.
"""
import sys, time
import numpy as np


def main():
    path = sys.argv[1]
    t0 = time.perf_counter()
    if path.endswith(".npz"):
        with np.load(path) as z:
            x = np.ascontiguousarray(z["X"], dtype=np.float64)
            y = z["y"]
    elif path.endswith(".npy"):
        x = np.ascontiguousarray(np.load(path), dtype=np.float64)
    else:
        x = np.loadtxt(path, delimiter=",", skiprows=1)
    t = time.perf_counter() - t0
    print("%d %d load %.2f ms" % (x.shape[0], x.shape[1], t * 1e3))


if __name__ == "__main__":
    main()
