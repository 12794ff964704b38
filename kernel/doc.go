// Package kernel provides positive-definite kernels on vectors.
//
// (Seam file: the kernel package is being filled in.)
package kernel
