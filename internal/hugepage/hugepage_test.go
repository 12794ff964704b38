package hugepage

import (
	"fmt"
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
// length asked, and free returns it.
func TestAlloc(t *testing.T) {
	for _, n := range []int{0, 1, 1000, 3 << 20} {
		f, free := Alloc(n)
		if len(f) != n {
			t.Fatalf("Alloc(%d): length %d", n, len(f))
		}
		for i := range f {
			if f[i] != 0 {
				t.Fatalf("Alloc(%d)[%d] = %v, want 0", n, i, f[i])
			}
			f[i] = float64(i)
		}
		if n > 0 && f[n-1] != float64(n-1) {
			t.Fatal("write lost")
		}
		free()
		g, free32 := Alloc32(n)
		if len(g) != n {
			t.Fatalf("Alloc32(%d): length %d", n, len(g))
		}
		for i := range g {
			if g[i] != 0 {
				t.Fatalf("Alloc32(%d)[%d] = %v, want 0", n, i, g[i])
			}
			g[i] = 1
		}
		free32()
		r, freeR := Reserve32(n)
		if len(r) != n {
			t.Fatalf("Reserve32(%d): length %d", n, len(r))
		}
		for i := range r {
			if r[i] != 0 {
				t.Fatalf("Reserve32(%d)[%d] = %v, want 0", n, i, r[i])
			}
			r[i] = 1
		}
		freeR()
	}
}
