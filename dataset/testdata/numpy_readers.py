#!/usr/bin/python3
"""NumPy (and scikit-learn) read timings of the BenchmarkLoad files.

The files are written by the Go benchmark from fixed seeds. Make them, then
time the Python readers on the very same files (page cache warm):

    DATASET_BENCH_DIR=/tmp/readers go test -run '^$' -bench BenchmarkLoad -benchtime 1x ./dataset
    /usr/bin/python3 dataset/testdata/numpy_readers.py /tmp/readers

For each file it prints the median and the minimum over REPEATS runs, in ms,
and MB/s of file bytes at the median. "np.load + float64 C" adds what the Go
reader always does on top of np.load: converting to a row-major float64
array (np.load alone hands back the stored dtype and order as they are).
"""
import os, statistics, sys, time
import numpy as np

REPEATS = 15


def timed(f):
    f()  # warm the page cache and the interpreter
    ts = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), min(ts)


def npz_xy(path):
    def f():
        with np.load(path) as z:
            return z["X"], z["y"]
    return f


def npz_xy_f64(path):
    def f():
        with np.load(path) as z:
            return np.ascontiguousarray(z["X"], dtype=np.float64), z["y"]
    return f


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "/tmp/readers"
    stored = os.path.join(d, "stored.npz")
    deflate = os.path.join(d, "deflate.npz")
    fortran = os.path.join(d, "fortran_i2.npy")
    csv = os.path.join(d, "data.csv")
    svm = os.path.join(d, "data.svm")
    cases = [
        ("npz-stored np.load X,y", stored, npz_xy(stored)),
        ("npz-deflate np.load X,y", deflate, npz_xy(deflate)),
        ("npy-fortran np.load", fortran, lambda: np.load(fortran)),
        ("npy-fortran np.load + float64 C", fortran,
         lambda: np.ascontiguousarray(np.load(fortran), dtype=np.float64)),
        ("csv np.loadtxt", csv, lambda: np.loadtxt(csv, delimiter=",", skiprows=1)),
    ]
    try:
        from sklearn.datasets import load_svmlight_file
        cases.append(("libsvm sklearn load_svmlight_file", svm, lambda: load_svmlight_file(svm)))
    except ImportError:
        pass
    print("numpy %s, %d repeats" % (np.__version__, REPEATS))
    print("%-38s %10s %10s %9s" % ("case", "median ms", "min ms", "MB/s"))
    for name, path, f in cases:
        med, lo = timed(f)
        mb = os.path.getsize(path) / 1e6
        print("%-38s %10.2f %10.2f %9.1f" % (name, med * 1e3, lo * 1e3, mb / med))


if __name__ == "__main__":
    main()
