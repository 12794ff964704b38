// Package bench runs anomaly detectors on data sets under one protocol and
// returns the figures: the library behind "anomaly bench". It prints
// nothing; Run returns a Result that the caller formats.
//
// # Protocol
//
// Every run ("task") is one registered method, one data set, one seed:
//
//  1. ADBench protocol (dataset.SplitADBench): a data set with more than
//     10,000 rows is cut to a stratified subsample of 10,000 rows; then a
//     70/30 stratified train/test split; min-max scaling fit on the train
//     part and applied to both. Both draws replay scikit-learn's
//     train_test_split(random_state=seed), so the rows are those of the
//     project's reference figures (shared/anchors/RESULTS.md).
//  2. The method is built from the registry with its defaults, Config.Params
//     on top, the task's seed as its seed parameter and, for tensor methods,
//     the data set's sample shape; it is fit, unsupervised, on the whole
//     train part (anomalies included) and scores the test part.
//  3. AUC-ROC and average precision of the test scores (package eval); wall
//     times of Fit and Score; peak memory (see Outcome.Memory).
//
// Data sets labelled by class rather than anomaly (Dataset.Class: the tensor
// .npz files) follow the class protocol (ClassSplit): each class in turn is
// normal, anomalies are drawn from the other classes until they make up 5%
// of the set (at least 2), and the set then goes through step 1.
//
// A Cell gathers the runs of one (data set, method) pair over the seeds
// (and classes) and holds their medians. Methods with a "shape" parameter
// (IsTensorMethod) run only on tensor data; every other method runs on all
// data sets, on the flattened rows of tensor data (Cell.Input "flat"), so
// tensor and vector methods sit side by side.
//
// # Failures and timeouts
//
// A run that fails (an error from the method, a panic, NaN scores) or
// exceeds Config.Timeout is recorded in its Outcome and marked in its Cell
// (Cell.Status: "failed", "timeout", "partial"); the benchmark goes on.
//
// # Runners and memory
//
// Tasks are plain data (JSON) and a Runner executes them. InProcess runs
// them here and measures the peak of live Go heap objects (runtime/metrics,
// sampled every 5 ms); a detector that ignores ctx cannot be stopped
// in-process, so a timed-out task is abandoned, not killed. The anomaly
// command uses a Runner that sends the tasks to a child process, which
// resets its peak resident set size before each (Linux clear_refs) and
// reports it after: a stricter figure (runtime and data included) and a
// real kill at the timeout (the next task gets a new child).
//
// # Other measurements
//
// SGDTrace records EXPoSE's stochastic gradient iterate against the batch
// mean embedding (the convergence plot of the EXPoSE paper's Figure 2);
// CPALSTrace records CP-ALS's relative error sweep by sweep on a tensor
// such as PlantedCP's.
package bench
