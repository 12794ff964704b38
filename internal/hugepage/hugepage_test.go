package hugepage

import (
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// Advise must leave the contents alone and accept any slice, large or
// small, aligned or not.
func TestAdviseKeepsContents(t *testing.T) {
	f := Floats(1 << 20) // 8 MiB: the advice applies
	for i := range f {
		f[i] = float64(i)
	}
	Advise(f[3:])
	Advise(f[:10])
	Advise(nil)
	for i, v := range f {
		if v != float64(i) {
			t.Fatalf("f[%d] = %v after Advise", i, v)
		}
	}
}

func ExampleFloats() {
	k := Floats(1024 * 1024) // an 8 MiB buffer, zeroed, on huge pages where the system has them
	fmt.Println(len(k), k[0])
	// Output: 1048576 0
}

// Alloc gives a zeroed, writable, 2 MiB-aligned (on Linux) buffer of the
// length asked, and free returns it; so do Alloc32 and Reserve32 in single
// precision.
func TestAlloc(t *testing.T) {
	for _, n := range []int{0, 1, 1000, 3 << 20} {
		f, free := Alloc(n)
		zeroedWritable(t, "Alloc", n, f, func(i int) float64 { return float64(i) })
		if n > 0 && f[n-1] != float64(n-1) {
			t.Fatal("write lost")
		}
		free()
		g, free32 := Alloc32(n)
		zeroedWritable(t, "Alloc32", n, g, func(int) float32 { return 1 })
		free32()
		r, freeR := Reserve32(n)
		zeroedWritable(t, "Reserve32", n, r, func(int) float32 { return 1 })
		freeR()
	}
}

// zeroedWritable checks that f, from the allocator name asked for n
// values, has length n and is all zeros, then writes value(i) to each f[i].
func zeroedWritable[T float32 | float64](t *testing.T, name string, n int, f []T, value func(i int) T) {
	t.Helper()
	if len(f) != n {
		t.Fatalf("%s(%d): length %d", name, n, len(f))
	}
	for i := range f {
		if f[i] != 0 {
			t.Fatalf("%s(%d)[%d] = %v, want 0", name, n, i, f[i])
		}
		f[i] = value(i)
	}
}

// TestMappingLowersSoftLimit: while a mapping lives, the runtime's soft
// memory limit is lowered by its size (at least), and it is restored when
// the mapping is freed; without a limit set nothing changes.
func TestMappingLowersSoftLimit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("mappings outside the heap are made on Linux only")
	}
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	const limit = 1 << 30
	debug.SetMemoryLimit(limit)
	f, free := Alloc(8 << 20) // 64 MiB
	if got := debug.SetMemoryLimit(-1); got > limit-int64(len(f))*8 {
		t.Errorf("limit %d with 64 MiB mapped, want at most %d", got, limit-int64(len(f))*8)
	}
	free()
	free() // a second free does nothing
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Errorf("limit %d after free, want %d", got, limit)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	_, free = Alloc(1 << 20)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("no limit set: the mapping set one (%d)", got)
	}
	free()
}
