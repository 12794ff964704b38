// Package detector is how a Go program fits anomaly detectors and scores
// data with them: build a detector of a method by name, fit it on rows
// of normal data, score new rows (higher = more anomalous), label them
// against the threshold the fit set, and save the model to a file that
// Load reads back.
//
//	import (
//		"github.com/kernelad/anomaly/detector"
//		_ "github.com/kernelad/anomaly/detector/all" // registers every method
//	)
//
//	d, err := detector.New("gauss", map[string]string{"contamination": "0.05"})
//	err = d.Fit(ctx, train)                            // n rows × d features, a gonum mat.Matrix
//	scores, err := d.Score(nil, test)                  // one score per row
//	labels, err := detector.Predict(ctx, nil, d, test) // 1 = anomaly
//	err = detector.Save(w, d)                          // and later detector.Load(r)
//
// A method joins the registry when its package is imported: import
// detector/all for all of them, or one method's package (gauss, kde,
// iforest, ...). Writing a new method is the business of package
// detector/method, the method author's kit, as database/sql/driver is
// to database/sql.
//
// # Conventions
//
// Rows are samples: Fit and Score take an n × d gonum mat.Matrix (dense,
// a view, or a github.com/james-bowman/sparse matrix). Tensor detectors
// take the same matrix with each row one sample tensor flattened in
// row-major order; their parameters carry the sample shape
// (Options.Shape fills it in).
//
// Scores keep one sign everywhere: higher = more anomalous. Each method
// keeps the natural meaning of its score under that sign (EXPoSE
// −⟨φ(y), w⟩, KDE −log p̂, kernel PCA reconstruction error, SVDD
// ‖φ(x)−c‖² − R², OC-SVM ρ − Σα_i k(x_i, x)).
//
// A fitted detector is safe for concurrent Score calls, and a fit is a
// transaction: one that fails (bad data, a cancelled context) leaves the
// detector as it was. Fit takes a context, ScoreContext is Score with
// one, and both return the context's error soon after it ends.
//
// # Threshold
//
// A fit ends by setting the threshold from the training scores and the
// method's contamination rate c (the contamination parameter, default
// 0.1, valid in (0, 0.5]): the (1−c) quantile of the training scores,
// with linear interpolation between order statistics (NumPy's default
// percentile, the rule PyOD's BaseDetector uses). [Predict] labels a row
// anomalous (1) when its score is strictly greater than the threshold. On
// training data without ties the flagged share is therefore ⌊c·n⌋/n or
// one row more.
//
// # Methods and parameters
//
// [Names] lists the registered methods and [Lookup] describes one: its
// summary and its parameters with their defaults and ranges. [New] builds
// a detector from key=value parameters (what the command line's --set
// gives); unknown methods, unknown parameter keys and values that do not
// parse or are out of range are errors that name the method and the key.
// Every method shares contamination, scale (the scale stage fitted on the
// training rows in front of the method: standard, robust, minmax,
// channel or none), sample and sample_seed (fit on a uniform sample of
// the rows). [Describe] gives a detector's method, resolved parameters
// (defaults included), column names and the warning of a degenerate fit.
//
// # Data larger than memory
//
// A [Source] is a data set read in chunks of rows (package dataset opens
// every format it reads as one). [FitSource] fits from it holding only
// what the method keeps (a sample, a sum, or the rows it keeps), and
// [ScoreSource] scores it a chunk at a time, with the same scores as the
// rows in one matrix.
//
// # Persistence
//
// [Save] writes a model file: a magic line, a JSON header {format,
// method, version, params, and optionally columns}, the shared state
// (scale stage, threshold), the method's state and a CRC-32 of everything
// before it. The columns are the names of the fitted columns, which a
// matrix does not carry: the caller that read them (a CSV header) gives
// them to [SetColumns] after Fit, and [CheckColumns] compares the names
// of data to be scored with them, as scikit-learn's feature_names_in_.
// [Load] checks the magic, the checksum, the file format and the method's
// state version before it rebuilds the detector through the registry, and
// checks every size in the states, so a corrupt, truncated, other-version
// or appended-to file is an error wrapping [ErrCorrupt], never a panic.
//
// # Progress
//
// A fit given a progress callback (Options.Progress) reports each stage
// that can take a while, at least about once a second of work, with the
// work done and the stage's total (≤ 0 when not known); a stage with a
// total ends at it. The stages, in the order a fit meets them (each
// method's package documentation says what a stage counts):
//
//	every method    sample (--sample's draw), scale (a scale stage fitted in passes over a Source)
//	expose          width, embedding (batch), sgd, score
//	gauss           moments, covariance (rows sorted or drifting), gram (more columns than rows), score
//	iforest         subsample, trees, score
//	kde             cv (bandwidth=cv), tree (the tree scorer), score
//	kpca            allocate, gram, eigen, reduce, vectors (exact); landmarks, features, covariance (Nyström)
//	ocsvm, svdd     gradient, smo, check (a precomputed kernel)
//	1stm            cp-als, gradient, smo
//	r1stm, r1svm    cp-als (r1stm), features, linear
//
// # Errors
//
// A programmer's misuse of the API (a nil matrix, more than one Options)
// panics, as gonum does. Anything caused by data is returned as an error:
// [ErrNotFitted] before Fit, [*DimError] for a wrong feature count,
// [*ValueError] for NaN or ±Inf naming row and column, [*EmptyError] for
// too few rows, [*ColumnsError] for columns other than the fit's,
// [*ScoreError] for rows whose scores overflow, and
// [*UnknownMethodError] for a method this build does not have (with the
// name it most likely means).
package detector
