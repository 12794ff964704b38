// Package kernel provides positive-definite kernels on vectors, their
// spectral distributions (for random features), Gram matrices, and the
// bandwidth rules the detectors use.
//
// Rows are samples: a data matrix X is n × d, a gonum mat.Matrix that may be
// dense, a view, any other mat.Matrix, or a sparse matrix of
// github.com/james-bowman/sparse (CSR, or COO, DOK, CSC converted to CSR;
// never densified as a whole).
//
// # Kernels
//
//	RBF{γ}                     k(x, y) = exp(−γ‖x − y‖²)            (Gaussian; "rbf", "gaussian")
//	Laplacian{γ}               k(x, y) = exp(−γ‖x − y‖₁)            ("laplacian")
//	Polynomial{γ, c₀, p}       k(x, y) = (γ⟨x, y⟩ + c₀)^p           ("poly", "polynomial")
//	Linear{}                   k(x, y) = ⟨x, y⟩                      ("linear")
//	Matern{ν, ℓ}, ν ∈ {½, 3/2, 5/2}, s = √(2ν)‖x − y‖/ℓ:
//	                           exp(−s), (1 + s)e^(−s), (1 + s + s²/3)e^(−s)
//
// The names in parentheses are what [Parse] accepts. γ is scikit-learn's
// gamma (so the RBF bandwidth σ of exp(−‖x−y‖²/(2σ²)) is σ = 1/√(2γ)).
//
// # Spectral distributions
//
// A [ShiftInvariant] kernel k(x, y) = κ(x − y) with κ(0) = 1 is, by
// Bochner's theorem, the characteristic function of a probability measure p:
// κ(δ) = E_{ω∼p}[cos(ωᵀδ)]. SampleFrequency draws ω ∼ p; package randfeat
// turns such draws into random Fourier features.
//
// RBF: κ(δ) = exp(−γ‖δ‖²) = Π_i exp(−γδ_i²). The characteristic function of
// N(0, s²) is exp(−s²t²/2), so s² = 2γ: ω ∼ N(0, 2γI).
//
// Laplacian: κ(δ) = exp(−γ‖δ‖₁) = Π_i exp(−γ|δ_i|), a product over
// coordinates, so the coordinates of ω are independent. The Cauchy
// distribution with location 0 and scale s has density
// s/(π(s² + t²)) and characteristic function E[e^{itω}] = exp(−s|t|)
// (a contour integral, or the Fourier pair of the Laplace density
// ½e^{−|x|} with 1/(1+t²)). Matching exp(−s|t|) with exp(−γ|δ_i|) gives
// s = γ: ω_i ∼ Cauchy(0, γ), drawn as γ·tan(π(u − ½)), u ∼ U(0, 1). Its
// imaginary part vanishes by symmetry, so E[cos(ωᵀδ)] = κ(δ). (The Cauchy
// has no mean or variance; the estimate of κ by cos(ωᵀδ) is still bounded.)
//
// Matérn: the spectral density is proportional to
// (2ν/ℓ² + ‖ω‖²)^(−ν−d/2), a multivariate Student t with 2ν degrees of
// freedom and scale 1/ℓ: ω = g·√(2ν/u)/ℓ with g ∼ N(0, I) and u ∼ χ²_{2ν}.
//
// RBF and Matérn are [Isotropic]: p is rotation invariant, so ω is a
// uniform direction times a radius, which SampleRadius draws (for RBF,
// √(2γ)·χ_d). Orthogonal random features need this.
//
// TestSpectral checks each distribution by Monte Carlo: over 20,000 draws
// the mean of cos(ωᵀδ) is within four standard errors of κ(δ).
//
// # Gram matrices
//
// [Gram] fills an n × n *mat.SymDense with K_ij = k(x_i, x_j) and [Cross] an
// n_X × n_Y *mat.Dense with k(x_i, y_j); the destination comes first and is
// allocated when empty (a wrong size panics with a "kernel:" message). The
// rows of X are cut into blocks of 64, handed out to
// runtime.GOMAXPROCS(0) workers; Gram computes the upper triangle only.
//
// For dense input, RBF, Linear and Polynomial take a BLAS path: one gemm
// (mat.Dense.Mul) per block gives the inner products P = X_b Yᵀ, then
//
//	RBF:        K = exp(−γ·max(0, ‖x‖² + ‖y‖² − 2P))
//	Polynomial: K = (γP + c₀)^p
//	Linear:     K = P
//
// For RBF both sides are first centred on the column means of the reference
// rows (Y, or X for Gram): distances do not change, and the cancellation in
// ‖x‖² + ‖y‖² − 2xᵀy, whose error is about ε·‖x‖², stays small for data far
// from the origin. Negative round-off is clamped to 0 and the diagonal of an
// RBF Gram matrix is exactly 1. The result agrees with Eval element by
// element to about 1e-15 for data of unit scale (the tests ask 1e-12).
//
// A sparse input (a james-bowman/sparse *sparse.CSR; its other formats are
// converted to CSR first, never densified) is read row by row: between two
// CSR rows, squared Euclidean and L1 distances and inner products come from
// a merge of the sorted index lists (exact, no cancellation); between a
// dense row x and a CSR row y, inner-product kernels use y's non-zeros only,
// and the distance kernels (RBF, Laplacian, Matérn) use ‖x‖² (or ‖x‖₁),
// computed once per x, corrected on y's non-zeros: ‖x − y‖² = ‖x‖² +
// Σ_{j ∈ nz(y)} ((x_j − y_j)² − x_j²), so a kernel row against a million
// columns costs the non-zeros, not the width. Your own Kernel gets Eval on
// each pair with the sparse row expanded into a scratch vector. [Row]
// computes one row of Cross on the calling goroutine.
//
// # Bandwidth rules
//
//	ScaleGamma(X)      γ = 1/(d·Var(X)), Var over all n·d entries with divisor
//	                   n·d (NumPy's X.var()); 1 when Var = 0. scikit-learn's
//	                   gamma='scale'.
//	MedianGamma(X, s)  γ = 1/median_{i<j} ‖x_i − x_j‖², over all pairs when
//	                   there are at most 10,000, else over 10,000 random pairs
//	                   drawn from s. (σ = median distance/√2 in
//	                   exp(−‖·‖²/(2σ²)).)
//	Scott(n, d)        n^(−1/(d+4))
//	Silverman(n, d)    (n(d+2)/4)^(−1/(d+4))
//
// A Spec's width rules (Spec.Width): scale (ScaleGamma), median
// (MedianGamma) and scale_scott, γ = ScaleGamma(X)·n^(2/(d+4)): the scale
// rule's Gaussian width √(1/(2γ)) times Scott's factor, so the width keeps
// the scale rule's dependence on the spread and the dimension and shrinks
// with the number of rows at the rate of Scott's rule (the AMISE-optimal
// rate for a Gaussian reference density). It is the default of expose,
// ocsvm and svdd, and kde's bandwidth=scale_scott is the same width.
//
// Spec.WidthRows resolves a rule on rows that are not in one matrix (a
// file read chunk by chunk, a [Rows]): one pass for the range check, two
// more for the scale rules, and the rows of the median rule's pairs read by
// index; the γ is Width's on the same rows, bit for bit.
//
// Scott and Silverman return scikit-learn's KernelDensity bandwidths, the
// bare factors (not multiplied by the data's standard deviation, unlike
// scipy's gaussian_kde); for 6_cardio's training split (n = 1281, d = 21)
// Scott gives 0.751, as ../shared/anchors/RESULTS.md reports.
//
// # Errors
//
// Misuse (mismatched lengths or shapes, an unsupported Matérn ν, an empty
// matrix for a bandwidth rule) panics with a "kernel:" prefix. [Parse]
// returns an error for an unknown name or an invalid parameter. Kernels do
// not check their inputs for NaN; a NaN propagates to the result.
package kernel
