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

// TestBounded checks the masked-rejection rule on a word source whose
// words are known: masks 0b111 for max = 5 rejects 7 and 6, accepts 3; a
// bound above 2³² takes two words per attempt, high first.
func TestBounded(t *testing.T) {
	w := &list{words: []uint32{0xff, 0xfe, 0x13}}
	if got := Bounded(w, 5); got != 3 || w.i != 3 {
		t.Errorf("Bounded(5) = %d after %d words, want 3 after 3", got, w.i)
	}
	w = &list{words: []uint32{0x1, 0x2}}
	if got := Bounded(w, 1<<33-1); got != 1<<32|2 || w.i != 2 {
		t.Errorf("Bounded(2³³−1) = %#x after %d words, want 0x100000002 after 2", got, w.i)
	}
	if got := Bounded(w, 0); got != 0 || w.i != 2 {
		t.Errorf("Bounded(0) = %d, drew %d words", got, w.i-2)
	}
}

type list struct {
	words []uint32
	i     int
}

func (l *list) Uint32() uint32 { l.i++; return l.words[l.i-1] }

// TestWordsOf checks that a source without Uint32 yields each Uint64's
// high half and then its low half.
func TestWordsOf(t *testing.T) {
	w := WordsOf(constSource(0x0123456789abcdef))
	if a, b := w.Uint32(), w.Uint32(); a != 0x01234567 || b != 0x89abcdef {
		t.Errorf("words %#x %#x", a, b)
	}
	if _, ok := WordsOf(New(1)).(*RandomState); !ok {
		t.Error("WordsOf(RandomState) did not return the state itself")
	}
}

type constSource uint64

func (c constSource) Uint64() uint64 { return uint64(c) }
