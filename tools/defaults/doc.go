// Command defaults runs the selection protocol of the project's default
// rules (make defaults): for every method, a fixed list of label-free
// candidate rules — parameter settings, written down before any result is
// looked at — is run under the ADBench protocol (seeds 1–3) on every data
// set of ../shared/data/adbench, and the tensor methods' candidates under
// the class protocol on ../shared/data/tensor. It reports per method the
// mean AUC-ROC of each candidate (the median over seeds per data set,
// then the mean over data sets), the leave-one-dataset-out estimate (for
// each held-out set, the candidate with the best mean on the others is
// scored on it) and the candidate that becomes the default (the best mean
// on all sets). No rule looks at labels, test rows or a data set's name:
// the candidates are parameters of the methods, resolved on training rows.
//
// Results are cached per (method, candidate, data set, seed, class) in
// bench-out/defaults/cache.jsonl, so an interrupted study resumes.
//
//	go run ./tools/defaults [-data ../shared/data] [-methods kde,ocsvm] [-out bench-out/defaults]
package main
