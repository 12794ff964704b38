package fastmath

import "golang.org/x/sys/cpu"

var useAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// cosAddAsm sets dst[j] = s·cos(dst[j] + b[j]) for len(dst) a multiple of
// four. A lane whose argument x is out of range (|x| ≥ MaxArg or NaN) is
// left holding x, and the function then returns true.
//
//go:noescape
func cosAddAsm(dst, b []float64, s float64) (outOfRange bool)
