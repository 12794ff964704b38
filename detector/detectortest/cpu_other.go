//go:build !unix

package detectortest

// cpuSeconds is not available here; the Cancel check skips its CPU part.
func cpuSeconds() (float64, bool) { return 0, false }
