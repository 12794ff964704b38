//go:build !linux

package dataset

// adviseHuge is a no-op where transparent huge pages cannot be requested.
func adviseHuge([]float64) {}
