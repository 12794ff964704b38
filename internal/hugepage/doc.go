// Package hugepage asks the operating system to back large float64 buffers
// with transparent huge pages before they are first written.
//
// A fresh buffer of hundreds of megabytes (a kernel matrix, a data array
// read from a file) is otherwise faulted in 4 KiB page by page: a 392 MB
// kernel matrix of 7,000 rows takes about 96,000 page faults, which on a
// virtual machine cost more than computing the matrix. With
// MADV_HUGEPAGE (what NumPy applies to its arrays) the same buffer takes
// about 190 faults of 2 MiB. The advice is only advice: where transparent
// huge pages are off, or on other systems, nothing changes.
//
// Conventions: Floats(n) returns a zeroed slice of length n, as make does,
// already backed by memory (Prefault); Advise leaves the contents alone
// and may be called on any slice; Prefault also commits the memory, so it
// is for buffers that will be written whole.
//
// Alloc, Alloc32, Reserve and Reserve32 map memory outside the Go heap.
// While such a mapping lives, the runtime's soft memory limit
// (debug.SetMemoryLimit, which the command line sets to its memory
// budget) is lowered by its size, so that the collector keeps the heap
// within what the mapping leaves of the budget; the limit is restored when
// the last mapping is freed.
package hugepage

// Floats returns make([]float64, n) with the huge-page advice applied (to
// buffers of 4 MiB or more) and the memory populated (Prefault) before
// anything is written into it.
func Floats(n int) []float64 {
	f := make([]float64, n)
	Prefault(f)
	return f
}

// Float32s is Floats for float32 (a kernel cache's columns in one slab).
func Float32s(n int) []float32 {
	f := make([]float32, n)
	Prefault32(f)
	return f
}
