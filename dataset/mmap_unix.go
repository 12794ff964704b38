//go:build unix

package dataset

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mapArrays is whether arrays are mapped at all (the tests read the
// same files both ways).
var mapArrays = true

// mapped is the read-only memory map of an array's data in a regular
// file, through which its passes read the rows in place (see
// array.mapData).
type mapped struct {
	mem  []byte    // the whole mapping, from a page boundary
	data []float64 // the array's values within it
	skip int64     // bytes of mem before data
	page int64
}

// mapData maps the data of the array when its passes can read the
// values where they lie: native-order float64 in C order, 8-byte
// aligned, in a regular file. A pass then hands out chunks of the
// mapping itself, and no byte of the file is copied: over a file in the
// page cache a pass cost 10 ms per 160 MB against 42 ms read into a
// buffer (2,000,000 rows × 10; gauss's fit makes four passes and reads
// a sample). When the map fails (a 32-bit address space, a file system
// without mmap) the array is read with ReadAt as before.
func (a *array) mapData() {
	if !mapArrays {
		return
	}
	f, ok := a.ra.(*os.File)
	h := a.h
	if !ok || a.fcol != nil || h.kind != 'f' || h.size != 8 || h.order != nativeOrder || a.off%8 != 0 || a.n == 0 || a.d == 0 {
		return
	}
	n := h.bytes()
	page := int64(os.Getpagesize())
	base := a.off &^ (page - 1)
	size := a.off - base + n
	if size != int64(int(size)) {
		return
	}
	mem, err := unix.Mmap(int(f.Fd()), base, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return
	}
	skip := a.off - base
	a.mm = &mapped{
		mem:  mem,
		data: unsafe.Slice((*float64)(unsafe.Pointer(&mem[skip])), n/8),
		skip: skip,
		page: page,
	}
}

// mapWindow is how much of a mapped file a pass holds resident, in
// bytes: the pages read are released, and the next ones asked for, a
// window at a time (in a file larger than mapWhole). Per chunk of 8 MiB
// the two calls (and the other
// cores' TLB flushes that releasing makes) cost a fit of 2,000,000 × 10
// rows 80–130 ms of 650; a window of 64 MiB makes them a few calls a
// pass, and a pass over a file of any size holds at most a window and
// a chunk of it.
const mapWindow = 64 << 20

// mapWhole is the size up to which a mapped file's pages are never
// released: passes after the first then read them without faulting
// (each pass over 160 MB spent about 27 ms faulting its pages back in,
// 110 ms of gauss's 565 ms fit of 2,000,000 × 10 rows). The resident
// pages are the page cache's own, clean and shared: the kernel drops
// them under pressure as it drops any cached file.
const mapWhole = 256 << 20

// pass is the window of one pass or ReadRows over a mapped array, in
// values: the pages from held on are still mapped, those up to advised
// asked for.
type pass struct {
	m             *mapped
	held, advised int
}

func (m *mapped) pass() *pass { return &pass{m: m} }

// use is called before the values [lo, hi) are read: when they run
// past the window asked for, the next window is asked for (the kernel
// reads it in the background, from disk when it is not cached).
func (p *pass) use(lo, hi int) {
	if hi <= p.advised {
		return
	}
	from := max(lo, p.advised)
	p.advised = min(len(p.m.data), hi+mapWindow/8)
	b0, b1 := p.m.span(from, p.advised, false)
	if b1 > b0 {
		_ = unix.Madvise(p.m.mem[b0:b1], unix.MADV_WILLNEED)
	}
}

// done is called after the values below hi have been read: once a
// window of them is held, they are released (the pages stay in the page
// cache). Only whole pages below hi go; the page hi ends in goes next
// time. done(len(data)) releases the rest.
func (p *pass) done(hi int) {
	if len(p.m.mem) <= mapWhole || (hi-p.held < mapWindow/8 && hi < len(p.m.data)) {
		return
	}
	b0, b1 := p.m.span(p.held, hi, true)
	if b1 > b0 {
		_ = unix.Madvise(p.m.mem[b0:b1], unix.MADV_DONTNEED)
	}
	p.held = hi
}

// span returns the page-aligned byte range of mem holding the values
// [lo, hi): from the page lo starts in to the page hi ends in, or, with
// whole set, only to the last page boundary at or below hi.
func (m *mapped) span(lo, hi int, whole bool) (int64, int64) {
	b0 := (m.skip + int64(lo)*8) &^ (m.page - 1)
	b1 := m.skip + int64(hi)*8
	if whole && hi*8 < len(m.mem)-int(m.skip) {
		b1 &^= m.page - 1
	} else {
		b1 = min((b1+m.page-1)&^(m.page-1), int64(len(m.mem)))
	}
	return b0, b1
}

func (m *mapped) unmap() { _ = unix.Munmap(m.mem) }
