// Package cpd computes the CP (CANDECOMP/PARAFAC) decomposition of dense
// N-way tensors by alternating least squares (CP-ALS), one tensor at a time
// or a whole batch of sample tensors on all cores.
//
// # The model
//
// A rank-R CP model of X ∈ ℝ^{I_0×…×I_{N−1}} is the Kruskal tensor
//
//	X ≈ [[λ; A_0, …, A_{N−1}]] = Σ_{r=1}^{R} λ_r · a_r^(0) ∘ a_r^(1) ∘ … ∘ a_r^(N−1),
//
// with factor matrices A_n = [a_1^(n) … a_R^(n)] ∈ ℝ^{I_n×R} and weights λ.
// It is eq. 3.6 of the R1STM paper (../shared/papers/003), where the
// per-sample factors feed the tensor kernels of eq. 4.17/4.18.
//
// # The algorithm
//
// CP-ALS minimises ‖X − [[λ; A]]‖_F by updating one factor at a time with
// the others fixed. With the unfolding and Khatri–Rao conventions of package
// tensor (row-major; X_(n) = A_n·KR(A_j, j≠n)ᵀ), the update of mode n is the
// least-squares solution of the normal equations
//
//	A_n · V_n = M_n,   V_n = ⊛_{j≠n} A_jᵀA_j  (R×R, ⊛ = Hadamard product),
//	                   M_n = X_(n) · KR(A_0, …, A_{n−1}, A_{n+1}, …, A_{N−1})  (the MTTKRP).
//
// A sweep updates modes 0, 1, …, N−1 in order. This is tensorly's parafac
// and the algorithm of ../shared/anchors/cpals_ref.py, which this package is
// timed against; the differences below change the cost, not the iterates
// (up to rounding):
//
//   - Normalisation. After each update the columns of A_n are scaled to unit
//     norm and the norms kept in λ (Kolda & Bader's CP-ALS). The product
//     tensor of every iterate is the same as without normalisation; V_n then
//     has a unit diagonal, which keeps it well scaled.
//   - Solve. V_n + Ridge·I is factorised by Cholesky (LAPACK potrf/potrs).
//     If V_n is not numerically positive definite (a pivot u_rr² ≤ R·ε·max
//     diag V_n, e.g. collinear or zero components), the pseudo-inverse from
//     its eigendecomposition is used instead, dropping eigenvalues ≤
//     R·ε·max|eigenvalue|. Ridge (default 0) is therefore relative to a unit
//     diagonal.
//   - MTTKRP without the full Khatri–Rao product. Let P = I_0⋯I_{N−2} and
//     L = I_{N−1}. Row-major data seen as a P×L matrix is X_(N−1)ᵀ for free.
//     Each sweep first forms T = (X as P×L)·A_{N−1} (one Gemm, P·L·R
//     multiply-adds); A_{N−1} does not change until the end of the sweep, so
//     every M_n for n ≤ N−2 follows from T by contracting the remaining
//     modes with small Khatri–Rao products of the factors before and after n
//     (P·R work each, a dimension tree of depth one). The last mode needs
//     M_{N−1} = X_(N−1)·KR(A_0, …, A_{N−2}), a second Gemm with the P×R
//     Khatri–Rao product. A sweep costs two passes over the tensor (the
//     reference does N), and all large products are Gemms whose inner loop
//     is a dot product of length L or P (the fast form in gonum's BLAS; the
//     Khatri–Rao products and T are stored transposed, R × P, for that).
//     X_(N−1) itself is materialised once per decomposition.
//   - Mode 0 is never initialised: its first update depends only on the
//     factors of modes 1…N−1.
//
// # Initialisation
//
// SVD (the default): A_n holds the R leading left singular vectors of X_(n),
// computed as the leading eigenvectors of the smaller Gram matrix
// (X_(n)X_(n)ᵀ, I_n×I_n, or X_(n)ᵀX_(n), mapped back by U = X_(n)V) with
// LAPACK syev — cheaper than an SVD of the unfolding and exactly what
// tensorly's partial SVD does for a wide matrix. Every unfolding has at
// least min_n I_n singular vectors, so SVD needs Rank ≤ the smallest side;
// a larger rank is a *RankError (use Random). On a large tensor the Gram
// matrices of the modes are formed concurrently. Random: entries uniform in
// [0, 1) from Config.Src (tensorly's default), which often stalls in swamps
// (local minima at 40–60% error on the 100×100×100 rank-5 problem of
// ../shared/anchors/RESULTS.md, where SVD init reaches the noise level), so
// it is not the default.
//
// # Small tensors
//
// The sample tensors of the tensor detectors are tiny (12×10×8, 125×45),
// and a batch factorises thousands of them, so fixed per-call costs matter
// more than flops. For them (and only them) the same iterates are computed
// with less overhead:
//
//   - Up to P·L = 8192 entries, the two products of a sweep (T and the last
//     mode's MTTKRP) are plain axpy/dot loops over the materialised X_(N−1)
//     instead of Gemm calls.
//   - Up to R = 8, the normal equations are solved by an inline Cholesky
//     with the same pivot test (LAPACK potrf/potrs above).
//   - The svd initialisation of a Gram matrix of order ≤ 32 that is too
//     small for subspace iteration takes its eigenvalues alone
//     (Householder tridiagonalisation in plain loops, then dsterf) and the
//     R leading eigenvectors by inverse iteration, accepted only at syev's
//     own backward error (residual ≤ 8·n·ε·‖G‖) and with every wanted
//     eigenvalue separated from its neighbours by more than 1e-6·‖G‖;
//     otherwise syev is used as before.
//
// TestSmallPathsMatchGeneral checks that these paths give the general
// path's sweep counts and factors (to ~1e-13) on planted tensors. On the
// stm scaling problem (12×10×8, rank 2, 1% noise, 10.4 sweeps per tensor
// on average) one decomposition costs about 28 µs of CPU, against 40 µs
// before (BenchmarkDecomposeSerial); the svd initialisation is about a
// quarter of it and the sweeps the rest.
//
// # Stopping rule
//
// After each sweep the relative error is computed in tensorly's cheap form
// from the last mode's MTTKRP,
//
//	e = √|‖X‖² + λᵀ(⊛_n A_nᵀA_n)λ − 2 Σ_r λ_r ⟨M_{N−1}[:,r], a_r^(N−1)⟩| / ‖X‖,
//
// and the iterations stop from the second sweep on once |e_{t−1} − e_t| <
// Tol (default 1e-8), or after MaxIter sweeps (default 100) — the rule of
// cpals_ref.py. Kruskal.RelErr is that e (its cancellation floor is about
// 1e-8 relative), Iter the sweeps done and Converged whether Tol stopped
// them.
//
// # Normal form of the result
//
// So that the same tensor always gives the same factors: every column of
// every factor has unit 2-norm and λ_r ≥ 0 holds the scale; in modes
// 0…N−2 the entry of largest magnitude of each column (the first one on
// ties) is positive, and the sign is pushed into the last mode (flipping
// column r of mode n and of mode N−1 together leaves the tensor unchanged);
// components are sorted by λ descending (stable). A component with λ_r = 0
// gets the first unit vector in every mode.
//
// # Batches
//
// DecomposeBatch factorises every row of an n × Π I_k matrix (rows are
// sample tensors flattened row-major, as the tensor detectors receive them)
// on runtime.GOMAXPROCS(0) workers, each with one reusable workspace, so the
// iterations allocate nothing; rows of a *mat.Dense are read in place. With
// Random initialisation one seed per row is drawn from Src in row order
// first, so results do not depend on scheduling.
//
// # Errors
//
// Data and configuration problems are returned: *RankError (rank < 1, or
// rank > smallest side with SVD init), *tensor.ShapeError (a sample shape
// whose product differs from the row length), ErrNonFinite (NaN/Inf in the
// tensor; wrapped in a *SampleError naming the row in a batch), and
// ctx.Err() when the context is cancelled (checked every sweep).
//
// FMS scores how well two Kruskal tensors agree (the mean congruence of
// matched components after the best permutation); it is how recovery of
// planted factors is tested.
package cpd
