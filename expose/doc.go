// Package expose implements EXPoSE, EXPected Similarity Estimation
// (Schneider, Ertel & Palm), an anomaly detector built on the kernel mean
// embedding, in its batch form and as the constant-time stochastic
// optimisation of "Constant time EXPected Similarity Estimation using
// stochastic optimization" (Algorithm 1).
//
// # Formulation
//
// For a bounded shift-invariant kernel k with feature map φ into the RKHS H,
// the mean embedding of the training distribution P is
//
//	μ[P] = E_P[φ(X)],   estimated by   w* = 1/n Σ_i φ(x_i),
//
// and the EXPoSE similarity of a point y to the data is η(y) = ⟨φ(y), μ[P]⟩
// = E_P[k(y, X)]: the expected kernel similarity, high for normal points.
// This package works in an explicit D-dimensional approximation of H given by
// random features (package randfeat): random Fourier features of the RBF or
// Laplacian kernel, or orthogonal random features of the RBF kernel,
// φ(x) = √(2/D) cos(Wx + b). The score keeps the project's sign (higher =
// more anomalous):
//
//	score(y) = −⟨φ(y), w⟩.
//
// # Batch solver
//
// The batch fit computes w* exactly in the feature space in one streaming
// pass over row chunks (ChunkRows rows at a time, on all cores): the n × D
// feature matrix is never formed, so memory is O(workers · ChunkRows · D)
// beyond the data. The per-worker sums are added in a fixed order, so a fit
// is reproducible bit for bit for a given seed and core count.
//
// # SGD solver (Algorithm 1)
//
// The mean embedding is the minimiser of f(w) = ½⟨w, w⟩ − ⟨φ(X), w⟩ in
// expectation over X ~ P, a 1-strongly convex objective whose stochastic
// gradient at a sample x_t is w − φ(x_t). With step γ_t = 1/t:
//
//	w_1 = 0
//	w_{t+1} = Π(w_t − γ_t (w_t − φ(x_t))) = Π((1 − 1/t) w_t + (1/t) φ(x_t))
//	Π(w) = w · min(1, M/‖w‖)      (projection onto the ball of radius M)
//
// where M bounds the kernel (k(x, x) ≤ M², M = 1 for normalised
// shift-invariant kernels). The paper prints the projection as
// w · max{1, M‖w‖}⁻¹; the projection onto the ball ‖w‖ ≤ M is the form
// above, and the two agree for M = 1. Theorem 1 gives
// E‖w_T − w*‖² ≤ M²/T, so T iterations reach accuracy ε with
// T = ⌈M²/ε²⌉ (set Iterations, or Epsilon with Iterations = 0). The samples
// x_t are training rows drawn uniformly without replacement (a fresh pass
// when T > n), drawn in O(T) time, so a fit costs O(T·D·d) whatever n is.
// For the same reason γ = scale is resolved, under the SGD solver, on a
// uniform sample of at most 10,000 training rows (on all of them when n is
// smaller, which gives the batch solver's γ); only the check of the input
// for NaN and ±Inf still reads every row.
//
// # Threshold
//
// The decision threshold is the (1 − contamination) quantile of training
// scores (detector.ThresholdFromScores). A batch fit scores at most
// ThresholdRows training rows (all when n is smaller, a seeded random
// sample otherwise); the SGD solver scores the T rows it drew, so its fit
// time stays independent of n. PartialFit re-estimates the threshold on the
// rows it was given.
//
// # Inputs
//
// Rows are samples. X may be a *mat.Dense, a view, or a *sparse.CSR from
// this module, which is mapped without being densified; sparse and dense
// copies of the same data give the same scores to rounding.
//
// # Persistence
//
// A fitted detector saves its feature map's frequencies and phases, the
// embedding, γ and the threshold (MarshalBinary), so a loaded model scores
// identically without redrawing the map.
package expose
