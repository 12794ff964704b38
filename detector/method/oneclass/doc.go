// Package oneclass is the layer between the smo solver and the one-class
// methods that use it (ocsvm, svdd and 1stm), as svm_train_one is in
// LIBSVM: it solves a one-class dual given in LIBSVM's scaling (upper
// bounds of order 1 and Σ y_i α'_i = s) and returns the solution in the
// Σ y_i α_i = 1 form the methods document, with its support-vector
// statistics; it builds the ν one-class SVM dual; and it saves and restores
// the kernel expansion a fitted model scores with. It belongs to the
// method author's kit (package detector/method): a one-class method built
// on method.Base takes its solver, its saved expansion and its memory
// estimate from here.
//
// # Formulation
//
// Schölkopf's ν one-class SVM (Nu) is the dual
//
//	min_α ½ αᵀQα   subject to   0 ≤ α_i ≤ 1/(νn),  Σ_i α_i = 1,
//
// with Q_ij = k(x_i, x_j); smo solves it as LIBSVM does, with α' = νn·α
// (bounds 1, Σα' = νn), and Solve divides back. ρ is the mean gradient
// over the free α_i (the middle of the bounded ones' interval when none is
// free).
//
// # Signs and shapes
//
// The training scores Nu returns are ρ − (Qα)_i: higher = more anomalous,
// the convention of every detector; a row is outside the support where its
// score is positive. Q is n × n over the n training rows; Alpha and Grad
// have n entries. Memory is the estimate of the peak bytes of a fit or a
// score that ocsvm and svdd register; FitKernel resolves their kernel
// width so that sparse rows and their dense copy get the same one.
package oneclass
