#!/usr/bin/python3
"""Regenerate libsvm_golden.tsv: LIBSVM 3.24's one-class SVM on the ADBench
train splits the Go code makes (issue 3, item 1).

Run from anywhere with Debian's python3 (needs libsvm-tools, python3-libsvm,
python3-sklearn):

    /usr/bin/python3 ocsvm/testdata/libsvm_golden.py

Steps: `go test ./ocsvm -run '^TestWriteSplits$'` writes each split (seed 1,
dataset.SplitADBench) as svmlight files with the exact doubles, the gamma
(kernel.ScaleGamma of the train split) and an FNV-64a hash of the train file;
then for nu in {0.1, 0.5}, `svm-train -s 2 -t 2 -g GAMMA -n NU -e 0.001 -m 200`
trains on it. obj, nSV, nBSV and #iter are parsed from svm-train's output, rho
is read from the model file (%.17g), the test AUC is computed from the
decision values of svmutil.svm_predict (score = -decision value, anomaly =
label -1) with sklearn.metrics.roc_auc_score. fit_s is the wall time of the
svm-train process. LIBSVM solves with sum(alpha) = nu*l, so obj and rho are
nu*l (rho) and (nu*l)^2 (obj) times those of the sum(alpha) = 1 form.
"""
import gzip, os, re, subprocess, sys, tempfile, time

sys.path.insert(0, "/usr/share/pyshared")
import numpy as np
from sklearn.metrics import roc_auc_score
try:
    from libsvm import svmutil
except ImportError:
    import svmutil

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.abspath(os.path.join(here, "..", ".."))
NUS = [0.1, 0.5]
COMMITTED = ("6_cardio", "38_thyroid")

def main():
    out = os.path.join(here, "libsvm_golden.tsv")
    with tempfile.TemporaryDirectory(prefix="ocsvm_golden_") as td:
        env = dict(os.environ, ANOMALY_WRITE_SPLITS=td)
        subprocess.run(["go", "test", "./ocsvm", "-run", "^TestWriteSplits$", "-count=1"],
                       cwd=root, env=env, check=True)
        metas = sorted(f for f in os.listdir(td) if f.endswith(".meta"))
        if not metas:
            sys.exit("no splits written (is /work/shared/data present?)")
        rows = []
        order = ["6_cardio", "38_thyroid", "31_satimage-2", "28_pendigits", "32_shuttle"]
        metas.sort(key=lambda f: order.index(f[:-5]) if f[:-5] in order else 99)
        for mf in metas:
            name, seed, gamma, n, h, d = open(os.path.join(td, mf)).read().split()
            tr = os.path.join(td, name + ".train")
            te = os.path.join(td, name + ".test")
            if name in COMMITTED:
                # Small splits are committed so the default test needs
                # neither the shared data nor the split code of today.
                for part, src in (("train", tr), ("test", te)):
                    with open(src, "rb") as fi, gzip.GzipFile(os.path.join(here, "%s.%s.svm.gz" % (name, part)), "wb", mtime=0) as fo:
                        fo.write(fi.read())
            for nu in NUS:
                model = os.path.join(td, "%s_%g.model" % (name, nu))
                cmd = ["svm-train", "-s", "2", "-t", "2", "-g", gamma, "-n", repr(nu),
                       "-e", "0.001", "-m", "200", tr, model]
                t0 = time.perf_counter()
                p = subprocess.run(cmd, capture_output=True, text=True, check=True)
                fit_s = time.perf_counter() - t0
                o = p.stdout
                obj = float(re.findall(r"obj = ([-+0-9.eE]+)", o)[-1])
                nsv = int(re.findall(r"nSV = (\d+)", o)[-1])
                nbsv = int(re.findall(r"nBSV = (\d+)", o)[-1])
                it = int(re.findall(r"#iter = (\d+)", o)[-1])
                rho = None
                for line in open(model):
                    if line.startswith("rho "):
                        rho = float(line.split()[1])
                m = svmutil.svm_load_model(model)
                y, x = svmutil.svm_read_problem(te)
                _, _, dec = svmutil.svm_predict(y, x, m, "-q")
                dec = np.asarray(dec, dtype=float).ravel()
                auc = roc_auc_score(np.asarray(y) == -1, -dec)
                rows.append((name, seed, repr(nu), gamma, n, h, repr(obj), repr(rho), nsv, nbsv, it,
                             "%.6f" % auc, "%.3f" % fit_s, d))
                print(name, nu, "obj", obj, "rho", rho, "nSV", nsv, "AUC %.4f" % auc, "fit %.3fs" % fit_s)
    with open(out, "w") as f:
        f.write("# svm-train -s 2 -t 2 -g GAMMA -n NU -e 0.001 -m 200 (libsvm-tools 3.24); made by libsvm_golden.py\n")
        f.write("dataset\tseed\tnu\tgamma\tn_train\ttrain_fnv64\tobj\trho\tnSV\tnBSV\titer\ttest_auc\tfit_s\td\n")
        for r in rows:
            f.write("\t".join(str(v) for v in r) + "\n")

if __name__ == "__main__":
    main()
