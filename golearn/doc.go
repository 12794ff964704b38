// Package golearn lets the anomaly detectors of github.com/kernelad/anomaly
// take part in golearn (github.com/sjwhitworth/golearn) programs: a
// Classifier implements golearn's base.Classifier, so it can be fitted on
// golearn's instances (ParseCSVToInstances, ParseDenseARFFToInstances, any
// FixedDataGrid), evaluated with golearn's evaluation package (confusion
// matrices, cross-validation), saved in golearn's model format and used as
// a member of golearn's ensembles (meta.BaggedModel: bagging anomaly
// detectors over random attribute subsets is feature bagging, Lazarevic &
// Kumar, KDD 2005).
//
// It is a module of its own (github.com/kernelad/anomaly/golearn), as beam/
// is, so users of the core library do not pull golearn's dependencies.
//
// # Formulation
//
// A detector scores rows, higher = more anomalous, and flags the rows whose
// score is above its threshold (the (1 − contamination) quantile of the
// training scores). As a classifier:
//
//   - Fit reads every attribute that is not a class attribute (each must be
//     a float attribute; convert categorical ones first, e.g. with golearn's
//     filters) in the grid's attribute order, and fits the detector on
//     them. The class attribute is ignored: the detectors are unsupervised.
//     With Labeled set, a semi-supervised method (svdd) is fitted with the
//     class attribute as labels: anomaly value 1, normal value 0, a missing
//     value unlabeled.
//   - Predict finds the fitted attributes by name (any order, extra
//     attributes ignored), scores the rows and returns golearn's prediction
//     grid (base.GeneratePredictionVector) with the class attribute set to
//     the anomaly value for flagged rows and the normal value for the
//     others, in the attribute's own values: "1"/"0" for a float class, and
//     for a nominal class the values of an obvious pair ({0,1},
//     {normal,anomaly}, {no,yes}, …, as the module's ARFF reader decides) or
//     those set in AnomalyClass and NormalClass.
//   - Scores returns the scores themselves, for ranking metrics (AUC) that
//     labels cannot give.
//
// Predictions are exactly those of the command line on the same file:
// `anomaly fit --method M` then `anomaly score` gives the same anomaly
// column row for row (TestMatchesCommandLine).
//
// # Saved models
//
// Save writes golearn's format (a gzipped tar with a METADATA entry naming
// the classifier "github.com/kernelad/anomaly", version 1), with the
// detector's own model file (detector.Save, the format `anomaly fit`
// writes) in the MODEL entry and the fitted attribute names in ATTRIBUTES.
// Save writes to a temporary file beside the target and renames it, so a
// failed save never leaves a half-written model. SaveWithPrefix and
// LoadWithPrefix write and read the same entries under an ensemble
// member's prefix.
package golearn
