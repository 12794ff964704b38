// Package symeig computes eigenpairs of dense symmetric matrices for the
// kernel methods: kernel PCA's n × n centred kernel matrix and its
// Lanczos matrices, and the Nyström map's m × m landmark kernel matrix.
//
// A symmetric A (its lower triangle read; ReduceUpperInPlace reads the
// upper one, in place) is first reduced to tridiagonal form,
// Qᵀ·A·Q = J, by LAPACK's blocked dsytrd (Reduce, ReduceContext), with
// its symmetric product and rank-2k update on all cores; Q stays as
// Householder reflectors below the subdiagonal. From J:
//
//   - Values: all eigenvalues (dsterf), in descending order;
//   - Vectors: the unit eigenvectors of chosen eigenvalues, by inverse
//     iteration on J (three steps, orthogonalised within clusters closer
//     than 10⁻³·‖J‖, as LAPACK's dstein) and Q applied to them;
//   - All: every eigenpair, by the implicit QL iteration with its
//     rotations accumulated in registers (fastmath.RotRows) and Q applied
//     by blocks.
//
// Conventions: eigenvalues descending; eigenvectors are the columns of the
// returned matrix, of unit length, with an arbitrary sign. Functions that
// take a context return ctx.Err() between columns or tiles of a panel,
// sweeps, vectors or blocks once it is done; ReduceUpperInPlaceProgress
// and VectorsTProgress also report their steps (kernel PCA's dense route
// runs for seconds at thousands of rows). Why not gonum's EigenSym: it forms every eigenvector with its
// rotations applied down the columns of a row-major matrix (28 s for
// n = 2,000 here against 2.8–4.3 s for All), and gonum v0.17 has no dsyevr
// for a subset of them. gonum's lapack still supplies the unblocked
// dsytd2, dsterf, dgtsv and dlarft that this package calls.
package symeig
