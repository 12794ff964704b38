// Package iforest is Isolation Forest (Liu, Ting and Zhou, "Isolation
// Forest", ICDM 2008), the reference detector that every bench answers
// against: should a kernel method be used at all?
//
// # Formulation
//
// Each of Trees isolation trees is grown on ψ = min(Samples, n) training
// rows drawn without replacement. A node splits on a feature drawn
// uniformly among those not constant on the node's rows, at a value drawn
// uniformly between that feature's minimum and maximum there; a node stops
// at one row, at rows that are all equal, or at the height limit
// ⌈log₂ ψ⌉. The path length of a row x in a tree is the depth of the leaf
// it reaches plus c(m), m the number of training rows in that leaf, where
//
//	c(m) = 2H(m−1) − 2(m−1)/m  (m > 2),  c(2) = 1,  c(1) = c(0) = 0,
//
// H(i) the harmonic number (ln i + γ_Euler for large i, as scikit-learn
// computes it), is the mean path length of an unsuccessful search in a
// binary search tree of m rows: the part of the tree the height limit cut
// off. The score is
//
//	s(x) = 2^(−E[h(x)] / c(ψ)),
//
// E over the trees: near 1 for rows isolated in few splits, about 0.5 or
// below for ordinary rows. Higher = more anomalous, the project's
// convention (scikit-learn's score_samples is −s(x)).
//
// # Defaults and units
//
// Trees = 100 and Samples = 256, the paper's and scikit-learn's. The
// splits compare one feature at a time, so the method does not care about
// the units of the features: its scale stage defaults to none. Every
// random choice comes from the seed parameter (Config.Src).
//
// # The same forest as scikit-learn
//
// The random choices are scikit-learn's (1.2, IsolationForest with
// random_state = seed), replayed draw for draw on NumPy's legacy Mersenne
// Twister (internal/nprand): the forest's generator gives one seed per
// tree; from that seed the tree's splitter seed and its ψ rows (a
// permutation, reservoir sampling or tracking selection, as
// sample_without_replacement picks by ψ/n); the splitter's xorshift
// generator then draws, node by node in depth-first order, left child
// first, the feature (a Fisher–Yates draw that remembers the features
// found constant on the path, as ExtraTreeRegressor's RandomSplitter with
// max_features = 1 does) and the split value
// lo + (hi − lo)·r/(2³¹ − 1), moved to lo when it lands on hi; rows with
// x ≤ value go left. With precision=single the values are rounded to
// float32 and a feature is constant on a node when its range is within
// 1e-7, as scikit-learn's trees do, and the forest is scikit-learn's: the
// same nodes and thresholds and the same scores to 1e-16
// (TestMatchesScikitLearn against a scikit-learn run). The default,
// precision=double, makes the same draws on the float64 values with
// "constant" meaning a zero range, so raw units are not rounded (float32
// keeps 7 digits: a timestamp of 1.7e9 seconds to 128 s) and the method
// is invariant to a positive affine change of any feature. On the 15
// ADBench sets (seeds 1–3, the anchors' splits) single precision gives
// scikit-learn's AUC on every run; double precision on all but one
// (pendigits seed 1, 0.001 apart). Not replayed: scikit-learn also stops
// a node whose random regression targets have variance below machine
// epsilon, a chance of order 1e-8 per node.
//
// # Reading the data: what a fit holds
//
// A tree reads only its ψ rows, so a fit draws every tree's subsample
// first (the draws above need only the row count) and then reads the
// union of those rows, at most Trees × ψ of them (about
// n·(1 − (1 − ψ/n)^Trees)), in one read by index (method.Fitting.Rows):
// from a file with rows by index (.npy, a stored .npz member) nothing
// else is read, from a text file one pass keeps those rows, and no copy
// of the whole data is made in any precision. When the trees draw every
// row (ψ near n, or many trees on few rows) the rows are taken whole
// (the matrix itself when it is in memory and the scale stage is none)
// and scored for the threshold as they are.
//
// The threshold is set from the scores of at most ThresholdRows = 100,000
// training rows: every row when there are no more (so a fit of up to
// 100,000 rows flags the share of its rows contamination asks for, as
// before the cap), else that many evenly spaced rows (rows i·n/100,000),
// read by index. A fit's memory is thus the forest, the union of the
// subsamples and the rows scored for the threshold, whatever n is (a fit
// of 2,000,000 × 10 rows in memory held 18 MB above the data, where
// scoring every row for the threshold held 190 MB and took 30 times the
// CPU), and a file fits as a matrix of the same rows does: the same
// forest, the same threshold.
//
// # Sparse input
//
// A *sparse.CSR (LIBSVM data) stays sparse: a split reads a feature's
// values on a node's rows through each row's non-zeros (a binary search
// in the row's column indices), and Score walks a row down the trees the
// same way, so a row of 10⁶ features costs what its non-zeros cost, never
// a dense copy. Dense and sparse copies of the same data grow the same
// forest and give the same scores, bit for bit, at the default scale
// stage (none). The splits compare one feature at a time, so a scale
// stage only moves them: under scale=standard, robust or minmax a sparse
// matrix is scaled without centring (to stay sparse) where a dense one is
// centred, and the two forests then differ only where a value lies
// within rounding of a split (the exact-arithmetic forests are the same).
//
// # Progress and cancellation
//
// Progress stages (Config.Progress), in order: "subsample" (the trees'
// rows drawn, by tree), "trees" (grown, by tree) and "score" (training
// rows scored for the threshold, by row), after the shared ones of
// method.Base ("sample" for a sample=N fit, "scale" for a scale stage
// fitted in passes over a file). Every stage checks the context between
// blocks of a few milliseconds of work; Score checks it every 4,096 tree
// walks, so a cancelled fit or Score returns within milliseconds however
// many trees there are.
//
// # Shapes
//
// Rows of X are samples, columns features; Fit needs at least 2 rows.
// Score returns one score per row.
package iforest
