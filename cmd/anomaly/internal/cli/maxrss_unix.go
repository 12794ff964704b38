//go:build unix

package cli

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSS returns the maximum resident set size of a finished child process
// in bytes (getrusage ru_maxrss: kilobytes on Linux, bytes on macOS), or 0.
// On Linux this figure is at least the parent's RSS when the child was
// started (exec records the old address space's high-water mark), so bench
// prefers the child's own VmHWM (selfPeakRSS) and uses this only where
// /proc is missing.
func maxRSS(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) * 1024
}
