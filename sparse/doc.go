// Package sparse provides a compressed sparse row (CSR) matrix that
// implements gonum's mat.Matrix, so sparse data (LIBSVM/SVMlight files,
// one-hot features) flows through the same Detector interface as dense data.
//
// The design named github.com/james-bowman/sparse for this; the Go module
// proxy available to this project refuses that module (HTTP 403 "not
// available"), so this package supplies the small part the project needs:
// construction from triplets or raw arrays, element access, row slicing
// without copying, iteration over non-zeros, and a product with a dense
// matrix that touches only stored entries. Its method names follow
// james-bowman/sparse (DoNonZero, DoRowNonZero, NNZ) so callers can switch
// to it if it becomes available.
//
// Shape convention: rows are samples, columns features. Indices are
// zero-based. Within a row, column indices are strictly increasing.
package sparse
