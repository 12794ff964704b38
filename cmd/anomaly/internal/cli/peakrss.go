package cli

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// selfPeakRSS returns this process's peak resident set size in bytes, the
// VmHWM line of /proc/self/status (Linux), or 0 where it is not available.
// Unlike getrusage's ru_maxrss seen from the parent, it counts only this
// process's own address space.
func selfPeakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			fields := strings.Fields(v) // "12345 kB"
			if len(fields) == 2 && fields[1] == "kB" {
				if kb, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
					return kb * 1024
				}
			}
		}
	}
	return 0
}

// resetPeakRSS resets this process's peak resident set size to its current
// size (Linux: "5" written to /proc/self/clear_refs) and reports whether it
// could.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}
