package hugepage

import (
	"math"
	"runtime/debug"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Advise asks the kernel to back the 2 MiB-aligned part of a large
// buffer (4 MiB or more) with transparent huge pages (MADV_HUGEPAGE, which
// NumPy also applies to its arrays) before it is first written. A fresh
// buffer is otherwise faulted in 4 KiB page by page: 12,400 faults for a
// 49 MB array, which on a virtual machine cost more than reading the file.
// The advice is only advice: without THP (or with THP "never") nothing
// changes.
func Advise(f []float64) { adviseSlice(f, false) }

// Advise32 is Advise for a float32 buffer.
func Advise32(f []float32) { adviseSlice(f, false) }

// Prefault is Advise for a buffer about to be written whole, followed by
// MADV_POPULATE_WRITE (Linux 5.14 and later) on the advised part: the
// kernel backs it with huge pages in one call instead of one fault per
// page on first write. On a virtual machine a fault is an exit to the
// host; 392 MB took 0.4–1.7 s to fault in by touching, against 0.06–0.2 s
// populated (Firecracker guest, 2 cores). Errors (older kernels, no
// memory to populate with) are ignored: the pages then fault in as usual.
func Prefault(f []float64) { adviseSlice(f, true) }

// Prefault32 is Prefault for a float32 buffer.
func Prefault32(f []float32) { adviseSlice(f, true) }

// adviseSlice advises the memory of f, and populates it when populate is
// set (see advise).
func adviseSlice[T float32 | float64](f []T, populate bool) {
	if len(f) > 0 {
		advise(unsafe.Pointer(unsafe.SliceData(f)), uintptr(len(f))*unsafe.Sizeof(f[0]), populate)
	}
}

func advise(base unsafe.Pointer, size uintptr, populate bool) {
	const huge = 2 << 20
	if size < 4<<20 {
		return
	}
	p := uintptr(base)
	start := (p + huge - 1) &^ (huge - 1)
	end := (p + size) &^ (huge - 1)
	if end <= start {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Add(base, start-p)), end-start)
	if populate && resident(b) {
		// A Go heap buffer whose span was reused: the runtime has just
		// zeroed it, so it is backed already, and the advice would only
		// walk its page tables again (0.5 ms for 8 MB here).
		return
	}
	if unix.Madvise(b, unix.MADV_HUGEPAGE) == nil && populate {
		_ = unix.Madvise(b, unix.MADV_POPULATE_WRITE)
	}
}

// resident reports whether the first and the last page of b are in
// memory (mincore): true for a buffer that has been written whole, false
// for one fresh from the operating system. When mincore fails it reports
// false, so that the caller advises as usual.
func resident(b []byte) bool {
	page := unix.Getpagesize()
	var v [1]byte
	for _, off := range []int{0, len(b) - page} {
		_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&b[off])), uintptr(page), uintptr(unsafe.Pointer(&v[0])))
		if errno != 0 || v[0]&1 == 0 {
			return false
		}
	}
	return true
}

// Alloc returns a zeroed buffer of n float64 values mapped straight from
// the operating system, outside the Go heap, 2 MiB-aligned, advised for
// huge pages and populated (Prefault), and the function that unmaps it.
// It is for a large scratch array that lives for one call (kernel PCA's
// n × n matrix): from the Go heap such a buffer is zeroed by the runtime
// on one core whenever its span is reused (0.35 s for 392 MB here) and
// stays mapped after it is dropped; mapped afresh it arrives zeroed and
// goes back at once. Nothing may use the buffer after free. When the
// mapping fails it falls back to Floats (and free does nothing).
func Alloc(n int) (f []float64, free func()) { return mapped(n, true, Floats) }

// Alloc32 is Alloc for float32 (a kernel cache's columns in one slab).
func Alloc32(n int) (f []float32, free func()) { return mapped(n, true, Float32s) }

// Reserve32 is Alloc32 without populating: the buffer is mapped and
// advised for huge pages, and its pages are faulted in (2 MiB at a time
// where transparent huge pages are on) only when first written. It is for
// a buffer that may be used only in part, such as a kernel cache's budget
// of columns: svm-train allocates its columns as the solver asks for
// them, and reserving the whole budget up front would cost the faults of
// columns never computed.
func Reserve32(n int) (f []float32, free func()) { return mapped(n, false, makeSlice[float32]) }

// Reserve is Reserve32 for float64 values: a buffer that grows into its
// budget (kernel PCA's Lanczos basis) is populated in parts, with Prefault
// on the part about to be used.
func Reserve(n int) (f []float64, free func()) { return mapped(n, false, makeSlice[float64]) }

// mapped maps n values, advised for huge pages and populated when populate
// is set (see advise); where the mapping fails it returns fallback(n) and
// a free that does nothing.
func mapped[T float32 | float64](n int, populate bool, fallback func(int) []T) ([]T, func()) {
	p, free := alloc(uintptr(n) * unsafe.Sizeof(T(0)))
	if p == nil {
		return fallback(n), func() {}
	}
	f := unsafe.Slice((*T)(p), n)
	adviseSlice(f, populate)
	return f, free
}

// makeSlice is make([]T, n), the fallback of Reserve and Reserve32.
func makeSlice[T any](n int) []T { return make([]T, n) }

// alloc maps size bytes at a 2 MiB boundary; nil when size is 0 or the
// mapping fails.
func alloc(size uintptr) (unsafe.Pointer, func()) {
	if size == 0 {
		return nil, nil
	}
	const huge = 2 << 20
	mem, err := unix.Mmap(-1, 0, int(size+huge), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, nil
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(mem)))
	off := (p+huge-1)&^(huge-1) - p
	account(int64(len(mem)))
	var once sync.Once
	return unsafe.Pointer(&mem[off]), func() {
		once.Do(func() {
			_ = unix.Munmap(mem)
			account(-int64(len(mem)))
		})
	}
}

// offHeap is the memory mapped by alloc and not yet unmapped, and the Go
// runtime's soft memory limit as it was before the first mapping.
var offHeap struct {
	sync.Mutex
	bytes int64
	limit int64
}

// account adds delta bytes to the mapped memory and lowers the runtime's
// soft memory limit (debug.SetMemoryLimit, which the command line sets to
// its memory budget) by what is mapped: the limit covers the Go heap
// only, and with kernel PCA's n × n matrix mapped outside it the
// collector let the heap grow to the whole budget beside the matrix (fits
// peaked 1.2–1.4 times the budget). With no limit set nothing changes; the
// limit is restored when the last mapping goes.
func account(delta int64) {
	offHeap.Lock()
	defer offHeap.Unlock()
	if offHeap.bytes == 0 {
		offHeap.limit = debug.SetMemoryLimit(-1)
	}
	offHeap.bytes += delta
	switch {
	case offHeap.limit == math.MaxInt64:
	case offHeap.bytes == 0:
		debug.SetMemoryLimit(offHeap.limit)
	default:
		// Never below 16 MiB: past that the budget's estimate was
		// wrong, and a limit near zero would only make the collector
		// run without end.
		debug.SetMemoryLimit(max(offHeap.limit-offHeap.bytes, 16<<20))
	}
}
