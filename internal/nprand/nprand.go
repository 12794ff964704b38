package nprand

const (
	n         = 624
	m         = 397
	matrixA   = 0x9908b0df
	upperMask = 0x80000000
	lowerMask = 0x7fffffff
)

// RandomState is NumPy's legacy MT19937 generator.
type RandomState struct {
	mt  [n]uint32
	pos int
}

// New returns the state of numpy.random.RandomState(seed).
func New(seed uint32) *RandomState {
	r := &RandomState{}
	s := seed
	for i := 0; i < n; i++ {
		r.mt[i] = s
		s = 1812433253*(s^(s>>30)) + uint32(i) + 1
	}
	r.pos = n
	return r
}

func (r *RandomState) generate() {
	for k := 0; k < n; k++ {
		y := (r.mt[k] & upperMask) | (r.mt[(k+1)%n] & lowerMask)
		v := r.mt[(k+m)%n] ^ (y >> 1)
		if y&1 != 0 {
			v ^= matrixA
		}
		r.mt[k] = v
	}
	r.pos = 0
}

// Uint32 returns the next 32-bit output (genrand_int32).
func (r *RandomState) Uint32() uint32 {
	if r.pos >= n {
		r.generate()
	}
	y := r.mt[r.pos]
	r.pos++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// Interval returns a uniform integer in [0, max] by NumPy's rule: mask to
// the smallest all-ones number covering max and reject values above it.
func (r *RandomState) Interval(max uint32) uint32 {
	if max == 0 {
		return 0
	}
	mask := max
	mask |= mask >> 1
	mask |= mask >> 2
	mask |= mask >> 4
	mask |= mask >> 8
	mask |= mask >> 16
	for {
		if v := r.Uint32() & mask; v <= max {
			return v
		}
	}
}

// Shuffle permutes x in place as RandomState.shuffle does for a 1-d array.
func (r *RandomState) Shuffle(x []int) {
	for i := len(x) - 1; i > 0; i-- {
		j := int(r.Interval(uint32(i)))
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
