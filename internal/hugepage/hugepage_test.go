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
