// Package detector defines the contract every anomaly detector in this module
// implements, and the pieces they share: a registry of methods by name, the
// rule that turns training scores and a contamination rate into a decision
// threshold, prediction, parameter parsing and a versioned model file.
//
// # Conventions
//
// Rows are samples: Fit and Score take an n × d gonum mat.Matrix (dense,
// a view, or a github.com/james-bowman/sparse matrix). Tensor detectors take the same
// matrix with each row one sample tensor flattened in row-major order; their
// configuration carries the sample shape.
//
// Scores keep one sign everywhere: higher = more anomalous. Each method keeps
// the natural meaning of its score under that sign (EXPoSE −⟨φ(y), w⟩, KDE
// −log p̂, kernel PCA reconstruction error, SVDD ‖φ(x)−c‖² − R², OC-SVM
// ρ − Σα_i k(x_i, x)).
//
// # Threshold
//
// Fit ends by calling [ThresholdFromScores] on the training scores with the
// method's contamination rate c (default 0.1, valid in (0, 0.5]). The
// threshold is the (1−c) quantile of the training scores, with linear
// interpolation between order statistics (NumPy's default percentile, the
// rule PyOD's BaseDetector uses), and [Predict] labels a row anomalous (1)
// when its score is strictly greater than the threshold. On training data
// without ties the flagged share is therefore ⌊c·n⌋/n or one row more.
//
// # Registry and parameters
//
// Each method package registers itself in an init function with [Register],
// giving a [Method]: its name, a one-line summary, its parameters with
// defaults, and a constructor from a [Params] (the key=value pairs the
// command line's --set gives). [New] builds a detector by name; unknown
// methods, unknown parameter keys and values that do not parse or are out of
// range are errors that name the method and the key.
//
// # Persistence
//
// [Save] writes a model envelope: a magic line, a JSON header
// {format, method, version, params, and optionally columns}, the method's
// state (from its encoding.BinaryMarshaler) and a CRC-32 of everything
// before it. The columns are the names of the fitted columns, which a
// matrix does not carry: the caller that read them (a CSV header) gives
// them to [SetColumns] after Fit, and [CheckColumns] compares the names of
// data to be scored with them, as scikit-learn's feature_names_in_. [Load]
// checks the magic, the checksum, the envelope format and the method's state
// version before rebuilding the detector through the registry, so a corrupt,
// truncated, other-version or appended-to file is an error, never a panic.
// A method's MarshalBinary and UnmarshalBinary encode its state with
// [EncodeState] and [DecodeState] and check the decoded arrays with
// [Finite]. A state is a struct of numbers, strings, slices and structs of
// them, written in a raw layout: a signature of its fields and types, then
// the values little-endian and fixed-size, in one buffer of the exact size
// (saving allocates the state's size once; gob, which earlier builds used
// and which DecodeState still reads, took 6–7×). [RowMajor] hands a
// matrix's own array to a state without a copy.
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
//	gauss           mean, covariance, score
//	iforest         subsample, trees, score
//	kde             cv (bandwidth=cv), tree (the tree scorer), score
//	kpca            allocate, gram, eigen, reduce, vectors (exact); landmarks, features, covariance (Nyström)
//	ocsvm, svdd     gradient, smo, check (a precomputed kernel)
//	1stm            cp-als, gradient, smo
//	r1stm, r1svm    cp-als (r1stm), features, linear
//
// # Errors
//
// A programmer's misuse of the API (a nil matrix, a dst of the wrong kind)
// panics with a "detector:" prefix, as gonum does. Anything caused by data is
// returned as an error: [ErrNotFitted] before Fit, [*DimError] for a wrong
// feature count, [*ValueError] for NaN or ±Inf naming row and column.
package detector
