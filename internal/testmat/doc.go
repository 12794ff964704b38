// Package testmat holds the small matrix and file helpers that the module's
// tests share: a dense matrix from literal rows, a CSR copy of any matrix
// (its non-zeros in increasing column order, as the file readers keep
// theirs), seeded standard-normal and uniform matrices, readers of the JSON
// and .npy golden files under a package's testdata and of any file, a writer
// of .npy files (well-formed or not), the skip of the tests that run only
// when an environment variable asks (ANOMALY_LONG and the golden writers), a
// fit then score of a detector and the check that a method refuses a bad
// configuration, the largest absolute difference of two results, a loop over
// the multi-indices of a tensor shape, and the column means, squared
// distances to a point and little-endian state encoding of the tests' small
// distance-to-the-mean detectors.
//
// It exists so that these helpers are written once rather than copied into
// each package's tests. It is imported only by tests. It depends on
// james-bowman/sparse, npyio and gonum alone (never on a package whose tests
// use it, which would be an import cycle), prints nothing, and reports a
// failure through the testing.TB it is given; the constructors that take no
// testing.TB panic on input no test should pass.
package testmat
