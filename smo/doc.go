// Package smo solves the box- and equality-constrained quadratic programs
// behind kernel anomaly detectors (one-class SVM, SVDD, SVDD with labelled
// anomalies, the one-class support tensor machine):
//
//	min_α  f(α) = ½ αᵀQα + pᵀα
//	s.t.   yᵀα = δ,   0 ≤ α_i ≤ C_i,   y_i ∈ {+1, −1},
//
// with Q symmetric positive semi-definite. It knows nothing of the problem
// it serves: a formulation is a Matrix (Q, usually y_i y_j k(x_i, x_j) times a
// constant), a linear term p, labels y, bounds C and δ, the way LIBSVM's
// Solver serves ONE_CLASS_Q and SVC_Q. The layers are LIBSVM's: Matrix
// (get_Q/get_QD), a column cache, and the solver.
//
// # Algorithm
//
// Sequential minimal optimisation: each iteration changes two variables
// (i, j) so that yᵀα stays δ, solving the two-variable subproblem exactly and
// clipping to the box. With G = ∇f = Qα + p, the index sets
// I_up = {t : y_t = +1, α_t < C_t or y_t = −1, α_t > 0} and
// I_low = {t : y_t = +1, α_t > 0 or y_t = −1, α_t < C_t}, and
// m(α) = max_{I_up} −y_t G_t, M(α) = min_{I_low} −y_t G_t, α is optimal when
// m(α) − M(α) ≤ Tol (default 1e-3, LIBSVM's -e).
//
// Working-set selection is WSS 2 of Fan, Chen and Lin (JMLR 6, 2005):
// i = argmax_{I_up} −y_t G_t, then j minimises the second-order decrease
// −b_it²/a_it over t ∈ I_low with b_it = −y_iG_i + y_tG_t > 0 and
// a_it = Q_ii + Q_tt − 2y_iy_tQ_it (a_it ≤ 0 is replaced by 1e-12, as
// LIBSVM's TAU; a clearly negative a_it means Q is not PSD and Solve returns
// an error wrapping ErrNotPSD).
//
// Shrinking (LIBSVM's heuristic, every min(n, 1000) iterations) removes
// variables at a bound whose gradient says they will stay there; the
// gradient of removed variables is reconstructed from
// Ḡ_i = Σ_{α_j = C_j} C_j Q_ij, kept up to date, before the final check, so
// the stopping test is always made on the whole problem. Unlike LIBSVM,
// which permutes the variables so the active ones come first (and then must
// swap two entries in every cached column per shrunk variable), the solver
// keeps everything in the problem's order and the active set as an
// ascending index list; on the shuttle split that pass was a fifth of the
// run time.
//
// ρ (Result.Rho) is the multiplier of the equality constraint with LIBSVM's
// sign: y_iG_i = ρ for every free variable (the mean over them is returned),
// otherwise the midpoint of the interval the bounded variables allow.
//
// # Cache and memory
//
// Columns of Q are computed on demand by Matrix.Column and kept in a
// least-recently-used cache of single-precision values (LIBSVM's Qfloat)
// under a byte budget (Settings.CacheMB, default 200 MB, at least two full
// columns). A column is computed over the active variables only while some
// are shrunk, tagged with the generation of the active set (which only
// shrinks until everything is reactivated), and completed over the inactive
// ones when a whole column is needed; every buffer has room for a whole
// column and evicted buffers are recycled, so the cache allocates nothing
// after warm-up and leaves no garbage. The solver holds no Q values outside the
// cache: kernel values in memory are bounded by the budget whatever n is
// (fitting all 49,097 rows of shuttle: cache peak 199.8 MB of 200 MB, Go
// heap peak 223 MB, process maximum RSS 235 MB, where Q would take 9.2 GB).
// Result.CachePeakBytes reports the high-water mark. The gradient is kept
// in double precision.
//
// KernelMatrix computes columns of y_iy_j·s·k(x_i, x_j) with
// runtime.GOMAXPROCS(0) goroutines over row blocks (RBF through squared norms
// and one dot product per entry, as LIBSVM); GramMatrix wraps a precomputed
// kernel matrix. Expansion evaluates the fitted Σ_i c_i k(x_i, x) over the
// support vectors, in parallel over blocks of rows; EvalContext checks a
// context between blocks and returns an error, never a panic, for an
// expansion whose arrays disagree (a crafted model file) or a worker
// that fails.
//
// # Context and progress
//
// Solve checks its context after about a millisecond of work (ctxEvery:
// kernel entries weighted by the values each reads, and the variables
// scanned per iteration), so cancellation latency grows neither with n
// nor with the width of the rows; the initial gradient's symmetric pass
// hands its workers row ranges of a few milliseconds each. Progress
// (Settings.Progress) comes at least every 100 ms of work, and each stage
// ends at its total.
//
// # Speed
//
// On the ADBench parity splits (ocsvm/testdata) the solver takes the same
// iterations as svm-train (a few fewer on two of ten) and computes about as
// many kernel values; per value it is as fast (RBF through a degree-9
// polynomial exp accurate to 1e-11, far below the float32 the cache
// stores, written into the column loop), and the columns use both cores. ocsvm/testdata/bench_vs_libsvm.sh prints the fit times next to
// svm-train's; BenchmarkSolve is the size grid.
//
// # Scaling
//
// The tolerance is absolute, so the scale of α matters. The one-class
// problems (Σα = 1, α_i ≤ 1/(νn)) are best solved, as LIBSVM does, in the
// variables α' = νn·α (bounds 1, Σα' = νn) and rescaled afterwards; the
// ocsvm and svdd packages do this, which is what makes their results match
// LIBSVM's to the printed digits.
//
// # Failure
//
// Problems in the data or numerics are returned errors: infeasible bounds
// (Σ C_i over the label of δ's sign < |δ|), a negative or non-finite Q_ii,
// negative curvature, cancellation (ctx.Err()). Reaching Settings.MaxIter is
// not an error: the Result carries Status IterationLimit (Status.Err gives
// ErrIterationLimit). Mismatched slice lengths are programming errors and
// panic with an "smo: " message.
package smo
