// Package gauss is the parametric Gaussian detector of the lecture notes:
// fit one multivariate normal N(m, Σ) to the training rows and score a row
// by how far it lies from it. It is a reference detector: the first model
// to beat before a kernel method is worth its cost.
//
// # Formulation
//
// m is the mean of the training rows and Σ the Ledoit–Wolf shrinkage
// estimate of their covariance (Ledoit and Wolf, "A well-conditioned
// estimator for large-dimensional covariance matrices", J. Multivariate
// Analysis 88, 2004), as scikit-learn's LedoitWolf computes it:
//
//	S = (1/n) Σ_i (x_i − m)(x_i − m)ᵀ,   μ = tr(S)/d,
//	Σ = (1 − ρ) S + ρ μ I,
//	δ = ‖S − μI‖²_F / d,
//	β = min(δ, (1/(n²d)) Σ_i ‖(x_i − m)(x_i − m)ᵀ − S‖²_F),  ρ = β/δ,
//
// so Σ is positive definite even when d ≥ n or a feature is constant (S
// singular). Config.Shrinkage fixes ρ instead. The score is the squared
// Mahalanobis distance
//
//	D²(x) = (x − m)ᵀ Σ⁻¹ (x − m)
//
// (Score "mahalanobis", the default) or the negative log density
// −log N(x; m, Σ) = ½(D²(x) + d log 2π + log det Σ) (Score "nll"); both
// rank rows alike. Higher = more anomalous. Σ⁻¹ is applied through the
// Cholesky factor of Σ when d ≤ n. With more features than rows (d > n)
// Σ = ρμI + ((1−ρ)/n)·XcᵀXc is kept in that low-rank form and applied by
// Woodbury's identity through the n × n matrix (ρμn/(1−ρ))·I + XcXcᵀ, and
// the shrinkage is computed from the n × n Gram matrix: a fit costs
// O(n²d) instead of O(d³) and nothing d × d is formed (on the flattened
// 6 × 896 EEG tensors, d = 5376, a fit takes milliseconds instead of tens
// of seconds). Both forms give the same scores (TestLowRankEqualsDense).
//
// # Shapes and units
//
// Rows of X are samples, columns features; Fit needs at least 2 rows.
// The shrinkage target μI treats every feature alike, so the scale stage
// standardises features by default (scale=standard), which also makes the
// scores independent of the features' units.
package gauss
