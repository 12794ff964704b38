// Package svdd is support vector data description (Tax & Duin, Machine
// Learning 54, 2004) with the kernel trick, and its semi-supervised form
// with labelled anomalies ("SVDD with negative examples", same paper, §3),
// registered as "svdd". Rows of X are samples.
//
// # Unsupervised SVDD
//
// The smallest sphere (centre c, radius R) in the feature space of k that
// holds the data up to slacks (lecture 001, eqs. 14–16):
//
//	min_{R, c, ξ}  R² + C Σ ξ_i   s.t.  ‖φ(x_i) − c‖² ≤ R² + ξ_i,  ξ_i ≥ 0,
//
// with C = 1/(νn) (set C or ν). Its dual (eqs. 21–23 with k in place of the
// inner product) is
//
//	max_α  Σ α_i k(x_i, x_i) − Σ_ij α_i α_j k(x_i, x_j)   s.t.  Σ α_i = 1,  0 ≤ α_i ≤ C,
//
// c = Σ α_i φ(x_i) (eq. 19), and R² = ‖φ(x_i) − c‖² for every unbounded
// support vector 0 < α_i < C (complementary slackness, eq. 24). C < 1/n
// leaves no feasible α (Σα = 1 needs nC ≥ 1): Fit returns an error.
//
// Package smo minimises the negated dual ½αᵀQα + pᵀα with Q = 2K,
// p_i = −K_ii, Σα = 1. For free i the solver's multiplier ρ satisfies
// G_i = (Qα + p)_i = 2⟨φ(x_i), c⟩ − K_ii = ρ, hence
// R² = ‖c‖² − ρ, and the score needs no ‖c‖²:
//
//	score(x) = ‖φ(x) − c‖² − R² = k(x, x) − 2 Σ α_i k(x_i, x) + ρ,
//
// positive outside the sphere (higher = more anomalous). As in package
// ocsvm, the dual is solved in α' = α/C (bounds 1, Σα' = 1/C = νn) so the
// tolerance means what LIBSVM's does.
//
// With an RBF kernel k(x, x) = 1, Σα_i k(x_i, x_i) = 1 is constant, the dual
// is twice the one-class SVM dual plus a constant, and the score is exactly
// 2(ρ_oc − Σα_i k(x_i, x)): SVDD with C = 1/(νn) and the ν one-class SVM rank
// every point identically (tested).
//
// # Labelled anomalies (FitLabeled)
//
// FitLabeled(ctx, X, y) takes y_i = 1 for a known anomaly, 0 for a known
// normal row and −1 for an unlabeled one; normal and unlabeled rows (index
// set T, n_T of them) are to be inside the sphere, known anomalies (set A)
// outside:
//
//	min R² + C Σ_{i∈T} ξ_i + C_A Σ_{l∈A} ξ_l
//	s.t. ‖φ(x_i) − c‖² ≤ R² + ξ_i (i ∈ T),  ‖φ(x_l) − c‖² ≥ R² − ξ_l (l ∈ A),  ξ ≥ 0.
//
// Derivation. With multipliers α_i, α_l ≥ 0 for the sphere constraints and
// β ≥ 0 for ξ ≥ 0, the Lagrangian is
//
//	L = R² + CΣξ_i + C_AΣξ_l − Σ_T α_i(R² + ξ_i − ‖φ_i − c‖²) − Σ_A α_l(‖φ_l − c‖² − R² + ξ_l) − Σβξ.
//
// ∂L/∂R = 0 gives Σ_T α_i − Σ_A α_l = 1; ∂L/∂c = 0 gives
// c = Σ_T α_i φ_i − Σ_A α_l φ_l; ∂L/∂ξ = 0 gives 0 ≤ α_i ≤ C, 0 ≤ α_l ≤ C_A.
// Writing y_i = +1 on T and y_l = −1 on A (the sign flip of the anomalies),
// these are c = Σ y_i α_i φ(x_i) and yᵀα = 1, and substituting back gives
//
//	max_α  Σ y_i α_i k(x_i, x_i) − Σ_ij y_i y_j α_i α_j k(x_i, x_j)   s.t.  yᵀα = 1,  0 ≤ α_i ≤ C_i:
//
// the unsupervised dual with every α_l of an anomaly entering with its sign
// flipped. In smo's form, Q_ij = 2y_iy_jK_ij and p_i = −y_iK_ii, the
// labelled two-class shape LIBSVM's SVC_Q has. For free i ∈ T,
// ‖φ_i − c‖² = R² as before; for free l ∈ A, y_lG_l = ‖c‖² − ‖φ_l − c‖² = ρ,
// so also ‖φ_l − c‖² = R² — both say R² = ‖c‖² − ρ, and the score keeps its
// form with the signed coefficients:
//
//	score(x) = k(x, x) − 2 Σ y_i α_i k(x_i, x) + ρ.
//
// C = 1/(νn_T) (or the given C); C_A (c_anomaly) defaults to C. On cardio
// with 5 % of the train anomalies labelled (6 rows), the median test AUC
// over split seeds 1–3 rises from 0.9448 to 0.9453 at ν = 0.5, where the
// small sphere already leaves the labelled rows outside (their α_l = 0: the
// gain is only their removal from the target set), and from 0.8843 to
// 0.8908 at ν = 0.1, where they bind (TestSemiSupervisedHelps). A larger
// c_anomaly weighs them more: 10·C gives 0.9242 on seed 2 at ν = 0.1.
//
// # Parameters and state
//
// Registry parameters: nu (default 0.9, DefaultNu) or c, c_anomaly, kernel (rbf,
// laplacian, poly, linear), gamma (a number, or the rule scale_scott, the
// default, scale or median), coef0, degree, tol, cache_mb, shrinking,
// max_iter, contamination, scale, sample, sample_seed. Center returns
// c explicitly for the linear kernel. A fitted model keeps its support
// vectors with coefficients y_iα_i, ρ and the threshold; MarshalBinary
// saves them. Reaching max_iter leaves a usable, non-optimal model and
// Stats().Status = smo.IterationLimit.
//
// # Sparse input, data larger than memory, cancellation, progress
//
// As in package ocsvm: a *sparse.CSR stays sparse (kernel values on the
// non-zeros; the scale stage does not centre it, and the width rules
// scale and scale_scott are computed about the column means, so at the
// defaults a sparse matrix and its dense copy give the same scores to
// rounding; poly and linear see the shift and differ); a fit holds every
// training row (from a Source, one scaled copy; fit on a sample,
// --sample, for a file larger than memory), scoring reads a chunk at a
// time; Fit, FitLabeled and Score hear their context within
// milliseconds; a failed or cancelled fit leaves the model as it was.
// With --sample, FitLabeled fits the labels of the sampled rows.
//
// Progress stages (Common.Progress): "gradient" (the solver's initial
// gradient) and "smo" (solver iterations of the iteration limit, ending at
// it); from package method, "scale" and "sample" when the rows come from
// a Source or --sample.
package svdd
