// Package ocsvm is Schölkopf's ν one-class support vector machine
// (Schölkopf, Platt, Shawe-Taylor, Smola, Williamson, Neural Computation
// 13, 2001), the detector registered as "ocsvm".
//
// # Formulation
//
// Rows of X are samples x_1 … x_n. The primal separates the data from the
// origin in the feature space of a kernel k (eq. 3.6 of the R1STM paper):
//
//	min_{w, ξ, ρ}  ½‖w‖² + 1/(νn) Σ ξ_i − ρ   s.t.  ⟨w, φ(x_i)⟩ ≥ ρ − ξ_i,  ξ_i ≥ 0,
//
// and its dual (eq. 3.7 there, 4.12 for tensors) is solved by package smo:
//
//	min_α  ½ Σ_ij α_i α_j k(x_i, x_j)   s.t.  0 ≤ α_i ≤ 1/(νn),  Σ α_i = 1.
//
// w = Σ α_i φ(x_i), and ρ = ⟨w, φ(x_i)⟩ for every free α_i (the solver's
// equality multiplier). ν ∈ (0, 1] is an upper bound on the fraction of
// training rows outside the region (bounded α_i = 1/(νn)) and a lower bound
// on the fraction of support vectors (α_i > 0).
//
// As LIBSVM (svm-train -s 2), the dual is solved in α' = νn·α (bounds 1,
// Σα' = νn), so the tolerance Tol means the same as LIBSVM's -e; Stats
// reports the Σα = 1 form: LIBSVM's printed obj is (νn)²·Objective and its
// rho is νn·Rho. On the ADBench train splits of cardio, thyroid,
// satimage-2, pendigits and shuttle (seed 1) at ν = 0.1 and 0.5 the fit
// matches svm-train (testdata/libsvm_golden.tsv, TestLIBSVMParity): the
// objective and ρ to 1e-7 relative, the same support vectors and bounded
// ones, the same test AUC, and the same iteration count on eight of ten
// (254 vs 271 and 655 vs 701 on the other two). Fit times against
// svm-train: testdata/bench_vs_libsvm.sh, with a recorded run in
// testdata/bench_vs_libsvm.txt.
//
// # Score
//
// Score returns ρ − Σ α_i k(x_i, x): positive outside the learned region,
// higher = more anomalous (LIBSVM's decision value with the sign flipped).
// Only the support vectors are kept. The threshold is the (1 − contamination)
// quantile of the training scores, which Fit reads off the solver's gradient
// (Kα)_i without a second pass (to the single precision of the kernel cache).
//
// # Kernels and parameters
//
// kernel = rbf (default; gamma = scale_scott = scale·n^(2/(d+4)), the
// width of gamma = scale = 1/(d·Var(X)) as scikit-learn's shrunk at Scott's
// rate, see package kernel),
// laplacian, poly (γxᵀy + coef0)^degree, linear, or precomputed: then Fit
// takes the n × n kernel matrix of the training rows, which must be
// symmetric positive semi-definite (checked by a Cholesky factorisation of
// K + δI, O(n³/3), see CheckGram), and Score the m × n matrix
// k(x, x_train). Registry parameters: nu, kernel, gamma, coef0, degree,
// tol, cache_mb, shrinking, max_iter, contamination, scale, sample,
// sample_seed.
//
// # Defaults
//
// ν = 0.9 (DefaultNu) with gamma = scale on standardised features (the scale
// stage's default) was chosen by make defaults, the label-free selection
// protocol in the README: mean AUC 0.890 over the 15 ADBench sets against
// 0.887 at ν = 0.5 and 0.822 for scikit-learn's defaults (no scaling,
// ν = 0.5). The width rule gamma = scale_scott, added after a study on
// held-out public data (README, Defaults), then ranked first: 0.904 on
// ADBench (leave-one-dataset-out 0.904) and 0.854 against 0.833 over the
// 11 held-out task families. A large ν keeps most rows as support vectors, so the score
// averages the kernel over nearly the whole training set, as a density
// estimate does; scoring costs grow with it. LIBSVM's and scikit-learn's
// ν = 0.5 is one --set nu=0.5 away, and the parity tests run there.
//
// Reaching max_iter is not an error: Fit keeps the feasible, non-optimal
// solution and Stats().Status is smo.IterationLimit.
//
// # Sparse input
//
// A *sparse.CSR (a LIBSVM file) stays sparse: the scale stage divides its
// columns without centring them, the solver's kernel matrix and the kept
// support vectors hold its non-zeros, and every kernel value is a merge of
// two rows' non-zeros, so a fit costs its non-zeros, never rows × columns.
// The rbf and laplacian kernels do not see the centring the stage leaves
// out; the width rules scale and scale_scott, which take the variance of
// all the entries, are computed about the column means for such rows
// (oneclass.FitKernel), so at the defaults a sparse matrix and its dense
// copy give the same model and scores to rounding (1e-12 relative here).
// The poly and linear kernels see the shift: on sparse rows with
// scale=standard their model differs from the dense rows' (use
// scale=none, or dense rows, to compare). A precomputed kernel matrix is
// read as dense rows (a sparse one is densified a chunk at a time).
//
// # Data larger than memory, cancellation, progress
//
// The solver needs every training row (its kernel matrix and the support
// vectors are rows), so a fit from a detector.Source (FitSource) reads
// the rows once, through the scale stage, into one copy (sparse rows into
// their non-zeros); for a file larger than memory fit on a sample
// (Common.Sample, --sample). Scoring reads the rows a chunk at a time.
// Fit and Score hear their context within milliseconds: the solver
// checks it after about a millisecond of work, the expansion between
// blocks of rows. A fit that fails or is cancelled leaves the detector's
// model as it was.
//
// Progress stages (Common.Progress): "gradient" (the solver's initial
// gradient: columns or row ranges of the kernel matrix), "smo" (solver
// iterations of the iteration limit, max_iter or LIBSVM's; a solve that
// converges first reports the limit when it stops) and, with the
// precomputed kernel, "check" (blocks of the Cholesky factorisation that
// checks the matrix is positive semi-definite); from package method,
// "scale" and "sample" when the rows come from a Source or --sample.
//
// # Memory
//
// A fit holds the scaled copy of the rows, the solver's copy of them (and
// for dense rows their transpose), the kernel column cache (cache_mb, at
// most the whole n × n matrix in float32) and a few vectors per row; the
// model keeps the support vectors (at least a share ν of the rows). The
// registered estimate (method.Memory) counts these.
package ocsvm
