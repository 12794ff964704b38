#!/usr/bin/python3
"""Build the held-out anomaly tasks of the README's "Held-out check".

Public data that ships with Debian packages and is not in ../shared:
scikit-learn's bundled data sets (python3-sklearn, no network) and R's
MASS and mlbench packages (r-cran-mass, r-cran-mlbench), exported to CSV
here with Rscript. The data files are NOT committed; run

    sudo apt-get install -y python3-sklearn r-cran-mass r-cran-mlbench
    /usr/bin/python3 tools/heldout/build.py OUTDIR   (the system Python with Debian's scikit-learn)

which writes 144 .npz files (X float64, y 0/1 with 1 = anomaly) in 11
families, 66 tasks, then e.g.

    anomaly bench --methods expose,kde --data OUTDIR --seeds 1,2,3 \
        --protocol raw --format json > runs.json
    python3 tools/heldout/summarise.py runs.json

Constructions (README):
- ODDS-style: wine, classes 2 and 3 normal, 10 rows of class 1 drawn as
  outliers (129 x 13); wbc (breast_cancer), benign normal, 21 of the 212
  malignant rows drawn (378 x 30); glass (mlbench Glass), type 6,
  tableware, the outliers (214 x 9, 9 outliers; no draw, one file).
- One class against the rest: each class normal in turn, round(n_class/9)
  rows of the other classes drawn as anomalies: iris (3 classes), wine
  (3), digits (10), crabs (MASS, 4 species x sex groups, 5 measurements),
  vehicle (mlbench Vehicle, 4 classes, 18 features), sonar (mlbench, 2
  classes, 60 features), vowel (mlbench Vowel, 11 classes, the 9 numeric
  features), letter (mlbench LetterRecognition, 26 classes, 16 features).
- Draws with seeds 1-3 (letter: seed 1), numpy's default_rng(seed)
  choice without replacement. These draws are this script's own: the
  files of the README's table were built by a script that was never
  committed, so the tasks are the same constructions, not the same rows.

Citations:
- Fisher, R. A. (1936). The use of multiple measurements in taxonomic
  problems. Annals of Eugenics 7, 179-188 (iris).
- Aeberhard, S., Coomans, D., de Vel, O. (1992). Comparison of
  classifiers in high dimensional settings. Tech. Rep. 92-02, James Cook
  University (wine; UCI Machine Learning Repository).
- Street, W. N., Wolberg, W. H., Mangasarian, O. L. (1993). Nuclear
  feature extraction for breast tumor diagnosis. IS&T/SPIE 1993 (Wisconsin
  diagnostic breast cancer; UCI).
- Alpaydin, E., Kaynak, C. (1998). Optical recognition of handwritten
  digits. UCI Machine Learning Repository (digits).
- Campbell, N. A., Mahon, R. J. (1974). A multivariate study of variation
  in two species of rock crab of genus Leptograpsus. Australian Journal of
  Zoology 22, 417-425; Venables, W. N., Ripley, B. D. (2002). Modern
  Applied Statistics with S, 4th ed., Springer (R package MASS).
- Leisch, F., Dimitriadou, E. mlbench: Machine Learning Benchmark
  Problems (R package), with the UCI data sets Glass (German, B., 1987),
  Vehicle (Siebert, J. P., 1987, Turing Institute), Sonar (Gorman, R. P.,
  Sejnowski, T. J., 1988), Vowel (Deterding, D., 1989) and
  LetterRecognition (Frey, P. W., Slate, D. J., 1991, Machine Learning 6).
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
from sklearn import datasets

R_EXPORT = r"""
suppressMessages({library(MASS); library(mlbench)})
out <- commandArgs(TRUE)[1]
data(crabs); data(Glass); data(Vehicle); data(Sonar); data(Vowel); data(LetterRecognition)
cr <- crabs; cr$group <- paste(cr$sp, cr$sex)
write.csv(data.frame(cr[, c("FL", "RW", "CL", "CW", "BD")], class = cr$group), file.path(out, "crabs.csv"), row.names = FALSE)
write.csv(Glass, file.path(out, "glass.csv"), row.names = FALSE)
write.csv(Vehicle, file.path(out, "vehicle.csv"), row.names = FALSE)
write.csv(Sonar, file.path(out, "sonar.csv"), row.names = FALSE)
v <- Vowel; num <- sapply(v, is.numeric)
write.csv(data.frame(v[, num], class = v$Class), file.path(out, "vowel.csv"), row.names = FALSE)
write.csv(LetterRecognition, file.path(out, "letter.csv"), row.names = FALSE)
"""


def read_csv(path, label):
    """Rows of a CSV written by R: the numeric columns and the label column."""
    import csv
    with open(path) as f:
        rows = list(csv.reader(f))
    head, body = rows[0], rows[1:]
    li = head.index(label)
    X = np.array([[float(v) for j, v in enumerate(r) if j != li] for r in body])
    y = np.array([r[li] for r in body])
    return X, y


def save(out, name, X, y):
    np.savez(os.path.join(out, name + ".npz"), X=np.asarray(X, dtype=np.float64), y=np.asarray(y, dtype=np.int64))


def one_vs_rest(out, family, X, labels, seeds):
    classes = sorted(set(labels.tolist()))
    for ci, c in enumerate(classes):
        normal = np.flatnonzero(labels == c)
        others = np.flatnonzero(labels != c)
        k = int(round(len(normal) / 9))
        for s in seeds:
            rng = np.random.default_rng(s)
            anom = rng.choice(others, size=k, replace=False)
            idx = np.concatenate([normal, np.sort(anom)])
            y = np.r_[np.zeros(len(normal)), np.ones(k)]
            save(out, f"{family}_c{ci}_s{s}", X[idx], y)


def odds(out, family, X, normal, pool, k, seeds):
    for s in seeds:
        rng = np.random.default_rng(s)
        anom = np.sort(rng.choice(pool, size=k, replace=False))
        idx = np.concatenate([normal, anom])
        y = np.r_[np.zeros(len(normal)), np.ones(k)]
        save(out, f"{family}_s{s}", X[idx], y)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: build.py OUTDIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    seeds = [1, 2, 3]
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["Rscript", "-e", R_EXPORT, tmp], check=True)
        crabs = read_csv(os.path.join(tmp, "crabs.csv"), "class")
        glass = read_csv(os.path.join(tmp, "glass.csv"), "Type")
        vehicle = read_csv(os.path.join(tmp, "vehicle.csv"), "Class")
        sonar = read_csv(os.path.join(tmp, "sonar.csv"), "Class")
        vowel = read_csv(os.path.join(tmp, "vowel.csv"), "class")
        letter = read_csv(os.path.join(tmp, "letter.csv"), "lettr")

    iris = datasets.load_iris()
    wine = datasets.load_wine()
    digits = datasets.load_digits()
    wbc = datasets.load_breast_cancer()

    # ODDS-style
    odds(out, "wineodds", wine.data, np.flatnonzero(wine.target != 0), np.flatnonzero(wine.target == 0), 10, seeds)
    odds(out, "wbc", wbc.data, np.flatnonzero(wbc.target == 1), np.flatnonzero(wbc.target == 0), 21, seeds)  # 1 = benign
    gX, gy = glass
    save(out, "glass", gX, (gy == "6").astype(int))

    # one class against the rest
    one_vs_rest(out, "iris", iris.data, iris.target, seeds)
    one_vs_rest(out, "wine", wine.data, wine.target, seeds)
    one_vs_rest(out, "digits", digits.data, digits.target, seeds)
    one_vs_rest(out, "crabs", *crabs, seeds)
    one_vs_rest(out, "vehicle", *vehicle, seeds)
    one_vs_rest(out, "sonar", *sonar, seeds)
    one_vs_rest(out, "vowel", *vowel, seeds)
    one_vs_rest(out, "letter", *letter, [1])
    print(len([f for f in os.listdir(out) if f.endswith(".npz")]), "files in", out)


if __name__ == "__main__":
    main()
