// Package randfeat provides explicit random feature maps for kernels.
//
// (Seam file: the randfeat package is being filled in.)
package randfeat
