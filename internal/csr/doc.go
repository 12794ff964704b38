// Package csr holds the few operations on james-bowman/sparse's CSR matrix
// that the module's sparse fast paths need and that the library does not
// offer in the form they need: a row's indices and values as slices (read
// through RawMatrix, never copied), a row range that shares storage, the
// products X·B and X·Bᵀ with a dense B that touch only the stored entries,
// a row-by-row builder for the file readers, and Canonical, which brings any
// of james-bowman's sparse formats to the one form the merge-join sparse dot
// products read.
//
// Why james-bowman/sparse: it is the sparse matrix library the design
// names, its types implement gonum's mat.Matrix (so a user's CSR flows
// through the same Detector interface as a mat.Dense), and it brings the
// sparse BLAS kernels (Dusdot, Dusaxpy) used here.
//
// Conventions: rows are samples, columns features, indices zero-based. A
// canonical CSR has strictly increasing column indices within each row;
// james-bowman's NewCSR does not check this, so every public entry point of
// the module that accepts sparse input passes it through Canonical first.
package csr
