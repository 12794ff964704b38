// Package dataset loads and prepares data for the detectors.
//
// (Seam file: the dataset package is being filled in.)
package dataset
