// Package shareddata finds the project's shared benchmark data for tests and
// benchmarks: the folder shared/data beside the repository (ADBench tables,
// MNIST, tensor sets; see its MANIFEST.md). When the folder is absent — a
// clone without ../shared — the test or benchmark is skipped with a message
// saying what is missing, never failed. ADBench loads one ADBench table and
// ADBenchSplit its train/test split. Has and SplitOrUniform serve the
// tests and benchmarks that run a smaller or synthetic case instead.
//
// ADBenchAUCs and ADBenchAnchors hold the ADBench protocol loop (seeds 1–3,
// fit on the train part, AUC-ROC on the test part, median against the
// scikit-learn anchors) that several packages' TestADBenchAUC share;
// MedianAUCs reads those anchors from shared/anchors/RESULTS.md, so the
// tests compare with the peers' figures as published there, not with
// copies of them.
//
// The path is found from this file's own location, so it is the same from
// every package directory.
package shareddata
