//go:build !linux

package hugepage

// Advise is a no-op where transparent huge pages cannot be requested.
func Advise([]float64) {}
