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
// This package works in an explicit finite-dimensional approximation of H
// (package randfeat): by default Nyström features on landmark rows (see
// below), or random features (map=rff, orf): random Fourier features of
// the RBF or Laplacian kernel, or orthogonal random features of the RBF
// kernel, φ(x) = √(2/D) cos(Wx + b). Rows are samples; the score keeps the
// project's sign (higher = more anomalous):
//
//	score(y) = −⟨φ(y), w⟩.
//
// The kernel width γ is given (gamma=0.5) or resolved on the training rows
// (after the scale stage) by a rule: scale_scott (the default), scale or
// median (package kernel).
//
// # Nyström features (map=nystrom, the default)
//
// The random maps' error in ⟨φ(x), φ(y)⟩ is additive, about 1/√D, and an
// anomaly's kernel mean is far below it: among the most anomalous rows
// the scores are mostly that noise (issue 35). The paper allows any
// approximate feature map with the same analysis (§5.1). map=nystrom
// draws m = Landmarks training rows l_1 … l_m uniformly without
// replacement (seeded from the detector's stream; default
// DefaultLandmarks = 500, capped at the rows drawn from), factors their
// Gram matrix by a pivoted Cholesky factorisation with a cut-off,
// K_mm = PᵀRᵀRP, stopping before the first pivot at most
// m·2⁻⁵²·max diag (randfeat.NewNystromCholesky), and maps
//
//	z(x) = R⁻ᵀ k_r(x),   k_r(x) = (k(l_1, x), …, k(l_r, x))
//
// over the r ≤ m landmarks it kept, in pivot order (a repeated landmark
// is never kept twice). Then ⟨z(x), z(y)⟩ = k_r(x)ᵀ K_rr⁻¹ k_r(y), the
// Nyström kernel: the projection onto the landmarks' span, exact on it,
// and small for a row far from every landmark in the kernel's own
// proportions. With every training row a landmark (and K_nn of full
// rank) the score is exactly −(1/n) Σ_i k(x_i, y), the exact mean
// embedding's (TestNystromEqualsExactEmbedding). ‖z(x)‖² ≤ k(x, x) = 1,
// so the SGD solver, its ball of radius M and Theorem 1 hold in the r
// coordinates as they do for the random maps (TestNystromSGDTheorem1).
// The factorisation costs at most m³/3 flops (7 ms at m = 500, 36 ms at
// 1,000 here, where the symmetric eigendecomposition this map first used
// took 0.11 and 0.59 s), and on ADBench at m = 500 it is within 0.003 of
// kde's mean average precision where the eigen form was 0.012 below
// (34_smtp: 0.337 against 0.114; docs/defaults.md).
//
// The embedding w stays in the r feature coordinates (what the SGD steps,
// the l1 regulariser and a partial fit continue from), but a score is
//
//	⟨z(y), w⟩ = k_r(y)ᵀ α,   α = R⁻¹ w   (a back substitution, once per fit),
//
// r kernel values and a dot product: O(r·d) per row, not the features'
// O(r·d + r²). For the rbf kernel the landmarks are prepared once
// (centred, transposed, their squared norms), so a block of 32 rows costs
// one register-blocked product, the exponents and a vectorised exp;
// blocks run on every core, the context looked at between them. The batch
// sum likewise adds the kernel rows k_r(x_i) in the rows' order (so that
// it depends on neither the chunks nor the core count) and applies R⁻ᵀ
// once. On 32_shuttle (49,097 × 9 rows, 'anomaly fit' then 'anomaly
// score' of every row, CPU seconds on a loaded 2-core machine, back to
// back) the default m = 500 took 0.14 + 0.10 s, m = 1,000 0.26 + 0.17 s
// and the random map at D = 2,000 (map=rff) 0.24 + 0.18 s. The batch
// solver draws the landmarks from every training row (read by index
// after the width rule), the SGD solver from its stage sample (so that it
// reads no other row), PartialFit on an unfitted detector from its rows.
// The roughness regulariser needs the frequencies of a random map and is
// an error with map=nystrom (set map=rff); features applies to the random
// maps only. Sparse rows are not centred for the map (a shift-invariant
// kernel does not see the centring), and the landmarks are held dense.
// The fit adds the stage "landmarks" (0 then 1 of 1 around the
// factorisation).
//
// # Batch solver
//
// The batch fit computes w* exactly in the feature space in one streaming
// pass over the rows (method.Fitting.Scan), mapping each chunk on all
// cores: the n × D feature matrix is never formed, and the rows are never
// held, so memory is the model, a chunk of rows and a feature block of a
// few rows per worker, whatever n is. Rows fall into blocks numbered from
// the first row, each worker adds its blocks' features in order and the
// per-worker sums are added in a fixed order, so a fit is reproducible bit
// for bit for a given seed and core count, from a matrix or a file.
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
// when T > n), drawn in O(T) time.
//
// The fit reads no row it does not use, so it costs O(T·D·d) whatever n
// is: the scale stage, the width rule and the threshold are fitted on one
// uniform sample of StageRows rows (default max(T, 10,000); Hooks.
// StageSample), scale_scott's factor n^(2/(d+4)) counting all n rows, and
// the T rows of the steps are read by index, ChunkRows at a time. From a
// source that reads rows by index (rows in memory, an .npy file) the fit
// reads the sample and the T rows; from one read in passes (CSV, LIBSVM,
// gzip) it reads the file once for the sample (a reservoir, which also
// counts the rows when their number is not known) and once more for the T
// rows (drawn first, and read in one pass of up to sgdPassBytes of rows,
// 32 MiB), so a file that can be read only once (standard input) is an
// error: read it into memory, or fit on a sample (Common.Sample). With
// StageRows −1, or no more rows than it, the stage, the width and the
// threshold take every row, as the batch solver's do.
//
// # Regularisers (section 4.2 of the paper)
//
// The paper proposes replacing ½⟨w, w⟩ by a regulariser λΩ(w). Taken
// literally that is ill-posed for both examples it gives: λ‖w‖₁ − ⟨μ, w⟩ is
// unbounded below as soon as some |μ_j| > λ, and the roughness penalty
// ⟨D²w, D²w⟩ vanishes on every function of zero curvature. This package adds
// λΩ to the objective instead of replacing the quadratic,
//
//	f(w) = ½⟨w, w⟩ + λΩ(w) − ⟨μ, w⟩,
//
// which keeps it 1-strongly convex (the property the paper notes other
// objectives lose) and is the paper's objective at λ = 0, the default. In
// the random-feature coordinates (⟨u, v⟩ is the dot product of the D
// coefficients) both minimisers have closed forms, used by the batch
// solver:
//
//   - regularizer=l1, Ω(w) = ‖w‖₁: the minimiser is the soft-thresholded
//     mean embedding, w_j = sign(μ_j)·max(|μ_j| − λ, 0). With
//     z_j = √(2/D) cos(ω_jᵀx + b_j) the coefficients μ_j are of order
//     √(2/D) (0.03 for D = 2000), so useful λ lie well below that.
//   - regularizer=roughness, Ω(w) = ⟨D²w, D²w⟩ with D² the Laplacian:
//     Δ cos(ωᵀx + b) = −‖ω‖² cos(ωᵀx + b), so in the feature coordinates
//     Ω(w) = Σ_j ‖ω_j‖⁴ w_j² and the minimiser is the spectral shrinkage
//     w_j = μ_j/(1 + 2λ‖ω_j‖⁴): high frequencies are damped.
//
// The SGD solver follows the same objective. For l1 each step is the
// proximal stochastic gradient step w ← soft((1 − γ_t)w + γ_t φ(x_t), γ_t λ)
// with γ_t = 1/t (it converges to the batch solution because f stays
// 1-strongly convex). For roughness the gradient (1 + 2λ‖ω_j‖⁴)w_j −
// φ_j(x_t) is taken with the diagonal step γ_t/(1 + 2λ‖ω_j‖⁴), which keeps
// the 1/t step stable for any λ and makes w_t the running mean of the
// shrunk features: after every complete pass over the rows it equals the
// batch solution. Both then project onto the ball of radius M as Algorithm
// 1 does (the solutions lie inside it: they are no longer than μ).
//
// # Threshold
//
// The decision threshold is the (1 − contamination) quantile of training
// scores (method.Base). A batch fit scores at most ThresholdRows training
// rows (all when n is smaller, a seeded random sample otherwise); the SGD
// solver scores its sample of StageRows rows, so its fit time stays
// independent of n. PartialFit re-estimates the threshold on the rows it
// was given.
//
// # Sparse input
//
// X may be a *mat.Dense, a view, or a github.com/james-bowman/sparse
// matrix (*sparse.CSR, or any of its formats, converted to CSR), which is
// mapped without being densified: the random features of a sparse row
// cost O(D) per non-zero (csr.MulDense), not O(D·d). The scale stage
// scales sparse rows without centring them (so that they stay sparse),
// where it centres dense rows; the centring is folded into the model
// instead: the width comes from the variance of the centred rows and the
// phases become b − Wc, c the centres in scaled units (column means under
// scale=standard, minima under minmax), so that a sparse matrix and a dense
// copy of it give the same model and scores to rounding (within 5e-15 of
// the scores' magnitude in TestSparseCentringEqualsDense). Under scale=robust the centres, medians, are taken as 0:
// exact when every column is at least half zeros, otherwise the two
// differ as two draws of the random features do.
//
// # Files larger than memory
//
// FitSource (method.Base) fits from a detector.Source read chunk by chunk.
// The batch solver holds the model and a few chunks: it passes over the
// file for the scale stage (package scale), for the width rule (one pass
// for the range check and two more for the scale rules, or for the
// centring of sparse rows), once for the embedding, and reads its
// threshold rows by index (or in one more pass). The SGD solver reads its
// sample and its T rows (see above). Scoring is row-wise and streams
// (detector.ScoreSource), with the same scores, bit for bit, as Score of
// the whole matrix.
//
// # Progress and cancellation
//
// Progress stages (Config.Progress, rows of the stage's total): "width"
// (the width rule's passes, 3n rows under the scale rules or for sparse
// rows, else n), "landmarks" (map=nystrom), "embedding" (the batch sum),
// "sgd" (T steps), "score" (the training rows scored for the threshold);
// Base adds "scale" and "sample" when it passes over a source or draws the
// SGD sample. Every stage checks its context at least every block of rows
// (a few milliseconds), and Score does too.
//
// # Persistence
//
// A fitted detector saves its feature map's frequencies and phases, the
// embedding, γ and the threshold (MarshalBinary), so a loaded model scores
// identically without redrawing the map. A Nyström model saves its
// kept landmarks (r × d, scaled) and the factor R (its r(r+1)/2 upper
// entries) instead of frequencies, 8·(r·d + r(r+1)/2 + r) bytes and a few
// hundred more (r = 500, d = 9: 1.0 MB), and loads without a factorisation; α is recomputed. A
// state of the first Nyström build (K_mm^{-1/2} and its rank) is refused
// with a message to fit again. Load checks every size against the bytes present and every
// value for finiteness.
package expose
