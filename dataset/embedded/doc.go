// Package embedded carries a few small real anomaly-detection data sets
// inside the binary, so that `anomaly bench` and the tests run on a machine
// with no data files.
//
// The files are copied unchanged from the project's shared data folder
// (shared/data, see its MANIFEST.md) and read with dataset.Read, so they
// load exactly as dataset.Load would load the originals:
//
//	ds, err := embedded.Load("6_cardio") // X 1831 × 21, Y 1 = anomaly
//
// # Data sets and citations
//
// Tabular sets, ADBench "Classical" files (X n × d stored in Fortran order,
// y 1 = anomaly, 0 = normal), from Minqi824/ADBench
// (adbench/datasets/Classical, commit 3dac8221081e190f157d78e93bfa8867f90d0965,
// BSD-2-Clause). Cite: Han, Hu, Huang, Jiang, Zhao, "ADBench: Anomaly
// Detection Benchmark", NeurIPS 2022. These are ODDS / UCI data as ADBench
// prepared them; the original data owners' terms still apply.
//
//	4_breastw    683 × 9,  239 anomalies: Wisconsin breast cancer, benign vs malignant
//	6_cardio    1831 × 21, 176 anomalies: cardiotocography, normal vs pathologic (ODDS)
//	38_thyroid  3772 × 6,   93 anomalies: thyroid, non-hyperfunction vs hyperfunction (ODDS)
//	40_vowels   1456 × 12,  50 anomalies: Japanese vowels, one speaker's frames downsampled (ODDS)
//	32_shuttle 49097 × 9, 3511 anomalies: Statlog shuttle, class 1 normal, small classes anomaly (ODDS)
//
// Tensor set: basicmotions, 80 samples × 6 channels × 100 time steps
// (smart-watch 3-D accelerometer and gyroscope, 10 Hz, 10 s), classes
// 0 Standing, 1 Running, 2 Walking, 3 Badminton (20 each), in
// Dataset.Class; Dataset.Split marks the original TRAIN (0) and TEST (1)
// parts. Converted to .npz from sktime/sktime
// (sktime/datasets/data/BasicMotions, commit
// 7bd7d1620c0656f3210eeb850bb1c0034159ee47, BSD-3-Clause); from the UEA
// multivariate time series classification archive (Bagnall et al. 2018,
// "The UEA multivariate time series classification archive"). Use
// dataset.NormalClass to pick a normal class.
package embedded
