package nprand

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext/prng"
)

// Words is a source of 32-bit words: the raw output NumPy's legacy
// generator consumes. gonum's *prng.MT19937 and *RandomState are Words.
type Words interface {
	Uint32() uint32
}

// RandomState is NumPy's legacy generator, numpy.random.RandomState: an
// MT19937 (gonum's, which is the reference genrand_int32) with NumPy's
// rules for turning its words into integers.
type RandomState struct {
	mt *prng.MT19937
}

// New returns the state of numpy.random.RandomState(seed): the Mersenne
// Twister initialised by init_genrand(seed).
func New(seed uint32) *RandomState {
	mt := prng.NewMT19937()
	mt.Seed(uint64(seed))
	return &RandomState{mt: mt}
}

// NewSource returns numpy.random.RandomState(seed) as a rand.Source: for
// a seed below 2³² the state of New(seed); above, the state NumPy's
// RandomState gives the array [low 32 bits, high 32 bits] (init_by_array).
func NewSource(seed uint64) rand.Source {
	if seed>>32 == 0 {
		return New(uint32(seed))
	}
	mt := prng.NewMT19937()
	mt.SeedFromKeys([]uint32{uint32(seed), uint32(seed >> 32)})
	return &RandomState{mt: mt}
}

// Uint32 returns the next 32-bit output (genrand_int32).
func (r *RandomState) Uint32() uint32 { return r.mt.Uint32() }

// Uint64 returns two words, the first in the high half (NumPy's
// next_uint64 for MT19937); it makes a RandomState a rand.Source.
func (r *RandomState) Uint64() uint64 { return r.mt.Uint64() }

// Interval returns a uniform integer in [0, max] by NumPy's rule: mask to
// the smallest all-ones number covering max and reject values above it.
func (r *RandomState) Interval(max uint32) uint32 { return uint32(Bounded(r, uint64(max))) }

// Bounded returns a uniform integer in [0, max] drawn from w as NumPy's
// legacy randint and random_interval draw it (masked rejection): for
// max < 2³² one word per attempt, above that two words (high, then low)
// per attempt, as NumPy's next_uint64 for MT19937. max = 0 draws nothing.
func Bounded(w Words, max uint64) uint64 {
	if max == 0 {
		return 0
	}
	mask := max
	for s := uint(1); s < 64; s <<= 1 {
		mask |= mask >> s
	}
	if max <= 0xffffffff {
		for {
			if v := uint64(w.Uint32()) & mask; v <= max {
				return v
			}
		}
	}
	for {
		hi := uint64(w.Uint32())
		if v := (hi<<32 | uint64(w.Uint32())) & mask; v <= max {
			return v
		}
	}
}

// Shuffle permutes x in place as RandomState.shuffle does for a 1-d array.
func (r *RandomState) Shuffle(x []int) {
	for i := len(x) - 1; i > 0; i-- {
		j := int(Bounded(r, uint64(i)))
		x[i], x[j] = x[j], x[i]
	}
}

// Permutation returns RandomState.permutation(k): a shuffled 0..k−1.
func (r *RandomState) Permutation(k int) []int {
	p := make([]int, k)
	for i := range p {
		p[i] = i
	}
	r.Shuffle(p)
	return p
}

// WordsOf returns the 32-bit words of src: src itself when it has a Uint32
// method (gonum's MT19937, a RandomState), otherwise each Uint64 split into
// its high and then its low half.
func WordsOf(src rand.Source) Words {
	if w, ok := src.(Words); ok {
		return w
	}
	return &halves{src: src}
}

type halves struct {
	src  rand.Source
	low  uint32
	have bool
}

func (h *halves) Uint32() uint32 {
	if h.have {
		h.have = false
		return h.low
	}
	v := h.src.Uint64()
	h.low, h.have = uint32(v), true
	return uint32(v >> 32)
}
