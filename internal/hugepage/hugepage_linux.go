package hugepage

import (
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
func Advise(f []float64) {
	if len(f) > 0 {
		advise(unsafe.Pointer(unsafe.SliceData(f)), uintptr(len(f))*8)
	}
}

// Advise32 is Advise for a float32 buffer.
func Advise32(f []float32) {
	if len(f) > 0 {
		advise(unsafe.Pointer(unsafe.SliceData(f)), uintptr(len(f))*4)
	}
}

func advise(base unsafe.Pointer, size uintptr) {
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
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
}
