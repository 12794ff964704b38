package nprand

import (
	"fmt"
	"testing"
)

// Reference outputs printed by NumPy 1.24.2 (Debian python3-numpy):
//
//	r = np.random.RandomState(1); [r.randint(0, 2**32, dtype=np.uint64) ...]
//	  is not a raw draw, so the raw words come from the MT19937 definition:
//	  the first output for seed 5489 is 3499211612 (Matsumoto & Nishimura).
//	np.random.RandomState(1).permutation(10) -> [2 9 6 4 0 3 1 7 8 5]
//	np.random.RandomState(42).permutation(7) -> [0 1 5 2 4 3 6]
func TestReference(t *testing.T) {
	if got := New(5489).Uint32(); got != 3499211612 {
		t.Fatalf("MT19937(5489) first output %d, want 3499211612", got)
	}
	for _, c := range []struct {
		seed uint32
		k    int
		want string
	}{
		{1, 10, "[2 9 6 4 0 3 1 7 8 5]"},
		{42, 7, "[0 1 5 2 4 3 6]"},
	} {
		if got := fmt.Sprint(New(c.seed).Permutation(c.k)); got != c.want {
			t.Errorf("RandomState(%d).permutation(%d) = %s, want %s", c.seed, c.k, got, c.want)
		}
	}
}

func ExampleRandomState_Permutation() {
	fmt.Println(New(1).Permutation(10))
	// Output: [2 9 6 4 0 3 1 7 8 5]
}
