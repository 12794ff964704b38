// Package randfeat provides explicit feature maps z: R^d → R^D whose inner
// products approximate a kernel, ⟨z(x), z(y)⟩ ≈ k(x, y), so that kernel
// methods can work with D-dimensional vectors instead of n × n Gram
// matrices: EXPoSE's mean embedding w = 1/n Σ z(x_i), approximate kernel
// PCA, linear one-class machines.
//
// Rows are samples. Every [Map] has Transform(dst, X), which sets the
// n × D matrix dst to z applied to each row of the n × d matrix X (dst is
// allocated when empty, and must otherwise be n × D), and TransformRow(dst,
// x), which maps one row into dst without allocating when cap(dst) ≥ D. X
// may be a *mat.Dense or view, any mat.Matrix, or a james-bowman/sparse
// matrix (*sparse.CSR, or any other of its formats, converted to CSR), which
// is never densified.
//
// # Random Fourier features (Rahimi and Recht, 2007)
//
// A shift-invariant kernel k(x, y) = κ(x − y) with κ(0) = 1 is, by
// Bochner's theorem, the characteristic function of a probability measure
// p, its spectral distribution (see package kernel):
//
//	κ(δ) = E_{ω∼p}[cos(ωᵀδ)].
//
// [Fourier] draws D frequencies ω_1…ω_D ∼ p (the rows of W) and phases
// b_i ∼ U[0, 2π) and maps
//
//	z(x) = √(2/D) · cos(Wx + b),
//
// the convention of scikit-learn's RBFSampler. Since
// 2cos(ωᵀx + b)cos(ωᵀy + b) = cos(ωᵀ(x − y)) + cos(ωᵀ(x + y) + 2b) and the
// second term has mean zero over b,
//
//	⟨z(x), z(y)⟩ = (1/D) Σ_i [cos(ω_iᵀδ) + cos(ω_iᵀ(x + y) + 2b_i)],  δ = x − y,
//
// is an unbiased estimate of κ(δ), a mean of D independent terms, with
//
//	Var ⟨z(x), z(y)⟩ = (1 + κ(2δ)/2 − κ(δ)²) / D
//
// (Var cos(ωᵀδ) = (1 + κ(2δ))/2 − κ(δ)², plus ½ from the phase term, which
// is uncorrelated with the first). The error therefore falls as 1/√D; at
// δ = 0 the variance is 1/(2D), so ‖z(x)‖² is 1 only on average.
// For RBF, ω ∼ N(0, 2γI); for the Laplacian kernel the coordinates of ω are
// Cauchy(0, γ); any kernel.ShiftInvariant works.
//
// Transform works on blocks of 256 rows spread over runtime.GOMAXPROCS(0)
// workers. It keeps Wᵀ (d × D, made once on first use, so W and B must not
// change after that): for dense X each block is one gemm X_b·Wᵀ, which for
// the small d of tabular data runs as row updates of length D; for a
// *sparse.CSR X each block is a sparse-dense product, one row update per
// stored entry, and is never densified. Dense and CSR input with the same
// values give the same features to round-off (tested to 1e-12). The
// cosines are most of the cost; they are evaluated by internal/fastmath,
// four at a time with AVX2/FMA where available, to within 2⁻⁵⁰ of math.Cos.
//
// # Orthogonal random features (Yu et al., 2016)
//
// For an isotropic kernel (kernel.Isotropic: p is rotation invariant) the
// frequencies can be drawn exactly orthogonal in blocks of d: W is a stack of
// ⌈D/d⌉ independent blocks S·Q, Q a d × d Haar-random orthogonal matrix
// (the Q of a QR factorisation of a standard normal matrix, its columns
// multiplied by the signs of R's diagonal) and S = diag(s_1…s_d) with s_j
// drawn by SampleRadius (for RBF, √(2γ)·χ_d), cut to D rows. Each row is
// still distributed as p, so the estimate stays unbiased, and orthogonality
// makes the cos(ωᵀδ) terms negatively correlated, which lowers the
// variance. [Orthogonal] embeds a Fourier (same W, B, cos map, Transform,
// TransformRow). In the package test (RBF, d = 8, κ ≈ 0.26, mean over 40
// maps) the mean absolute error of ⟨z(x), z(y)⟩ is 0.075, 0.038, 0.019 for
// RFF and 0.069, 0.032, 0.016 for ORF at D = 100, 400, 1600.
//
// # Nyström features
//
// [Nystrom] takes m landmarks l_1…l_m (often a subset of the training rows)
// and any kernel, and maps
//
//	z(x) = K_mm^{-1/2} k_m(x),  k_m(x) = (k(l_1, x), …, k(l_m, x)),
//
// so ⟨z(x), z(y)⟩ = k_m(x)ᵀ K_mm⁺ k_m(y), the kernel of the projection onto
// the span of the landmarks' feature vectors; with every training row a
// landmark it reproduces the Gram matrix exactly. K_mm^{-1/2} comes from
// the symmetric eigendecomposition K_mm = UΛUᵀ as U Λ⁺^{1/2} Uᵀ, where
// eigenvalues λ ≤ m·2⁻⁵²·λ_max (NumPy's matrix_rank tolerance) or λ ≤ 0 are
// treated as zero (their directions dropped) instead of being raised to a
// floor as in scikit-learn's Nystroem (which clamps at 1e-12 and so
// amplifies round-off by up to 10⁶). Dim is m; Rank reports how many
// directions were kept. The eigendecomposition is the internal symeig
// package's (NewNystromContext stops between its steps when its context
// is done), and a saved model keeps K_mm^{-1/2} so that RestoreNystrom
// rebuilds the map without it.
//
// [NewNystromCholesky] builds the same map for a tenth of the cost or
// less: a pivoted Cholesky factorisation K_mm = PᵀRᵀRP that takes the
// landmark with the largest remaining diagonal at each step and stops
// when that is at most m·2⁻⁵²·max diag (LAPACK dpstrf's tolerance) keeps
// r ≤ m landmarks and maps z(x) = R⁻ᵀ k_r(x) (Dim and Rank r), about
// m³/3 flops in panels whose updates are one register-blocked product,
// against the eigendecomposition's ~10 m³ (BenchmarkNystromNew, m = 1,000
// landmarks of 9 uniform columns: 36 ms against 590 ms). Its inner
// products equal the eigen form's on landmarks with a well-conditioned
// Gram matrix and on repeated landmarks (TestNystromCholeskyMatchesEigen);
// FromKernelRow and Weights apply R⁻ᵀ and R⁻¹ by triangular solves, and
// RestoreNystromCholesky rebuilds the map from its landmarks and R.
//
// # Randomness and persistence
//
// Every random map is drawn from a math/rand/v2 Source passed in: the same
// source state gives bit-identical W and b. A Fourier (or the Fourier inside
// an Orthogonal) is fully described by its exported W and B (see
// Frequencies), which is what a saved model stores.
//
// Misuse (an input of the wrong width, a dst of the wrong size, d or D < 1)
// panics; NewNystrom returns an error for landmarks whose kernel matrix is
// empty, non-finite or has no positive eigenvalue, and RestoreNystrom for
// a matrix or rank that does not fit the landmarks.
package randfeat
