// Package tensor provides dense N-way tensors and the multilinear algebra
// that CP decomposition and the tensor anomaly detectors need: mode-n
// unfolding and folding, the Khatri–Rao product, n-mode products, the inner
// product and the Frobenius norm, and zero-copy views of one sample inside a
// batch matrix.
//
// # Storage
//
// A *Dense holds a shape (I_0, …, I_{N−1}) and a flat []float64 in
// row-major (C) order, the last index varying fastest:
//
//	X[i_0, …, i_{N−1}] = data[((i_0·I_1 + i_1)·I_2 + …)·I_{N−1} + i_{N−1}]
//
// This is the layout of a NumPy array and of one row of a data matrix: the
// detectors take an n × Π I_k mat.Dense whose rows are sample tensors
// flattened row-major, with the sample shape in their config. RowView turns
// row i of such a matrix into a *Dense that shares its memory (no copy);
// Row copies a row of any mat.Matrix. CheckShape and New return a
// *ShapeError when a shape does not describe the data (a side below 1, or a
// product of sides different from the row length), which is what a user's
// "--shape 24x51" on a file with 1,200 columns gets.
//
// # Unfolding and Khatri–Rao: one consistent convention
//
// The mode-n unfolding X_(n) is the I_n × (Π_{j≠n} I_j) matrix whose column
// index flattens the remaining indices in their natural order, the last
// fastest (row-major):
//
//	X_(n)[i_n, (…(i_0·I_1 + i_1)…)·I_{N−1} + i_{N−1}] = X[i_0, …, i_{N−1}]   (i_n skipped)
//
// — NumPy's moveaxis(X, n, 0).reshape(I_n, −1), and the convention of
// tensorly. The Khatri–Rao product (column-wise Kronecker product) is
// ordered the same way, the first matrix varying slowest:
//
//	KhatriRao(A, B)[i·I_B + k, r] = A[i, r]·B[k, r]
//
// so that a Kruskal tensor X = Σ_r a_r^(0) ∘ … ∘ a_r^(N−1) satisfies
//
//	X_(n) = A_n · KhatriRao(A_0, …, A_{n−1}, A_{n+1}, …, A_{N−1})ᵀ.
//
// Kolda & Bader (SIAM Review 2009) order the columns of X_(n) with the first
// remaining index fastest and pair them with the Khatri–Rao product taken in
// reverse order (A_{N−1} ⊙ … ⊙ A_0); the two conventions differ by a
// permutation of columns only, so every identity carries over. Do not mix
// them.
//
// With row-major data two unfoldings are free reshapes: X_(0) is the data
// seen as I_0 × (I_1⋯I_{N−1}), and X_(N−1)ᵀ is the data seen as
// (I_0⋯I_{N−2}) × I_{N−1}. Reshape(k) returns these views (sharing memory);
// Unfold copies any mode into a mat.Dense.
//
// # Products and norms
//
// ModeProduct computes Y = X ×_n U for a J × I_n matrix U, Y_(n) = U·X_(n)
// (Kolda & Bader's definition; side n of Y is J). Inner is ⟨X, Y⟩ = Σ x·y
// over all entries and Norm the Frobenius norm √⟨X, X⟩, computed without
// overflow.
//
// # Errors and panics
//
// Shapes that come from data or from users (CheckShape, New, ParseShape,
// RowView, Fold) give a returned *ShapeError. Programmer mistakes — an index
// out of range, a mode n ≥ N, operands of different shapes — panic with a
// message prefixed "tensor: ", as gonum's mat does.
package tensor
