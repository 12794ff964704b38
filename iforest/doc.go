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
// # Shapes
//
// Rows of X are samples, columns features; Fit needs at least 2 rows.
// Score returns one score per row.
package iforest
