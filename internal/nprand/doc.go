// Package nprand reproduces the parts of NumPy's legacy random generator
// (numpy.random.RandomState, MT19937) that scikit-learn's data splitting
// and its Isolation Forest use, bit for bit: integer seeding, bounded
// integers by masked rejection, and permutation by Fisher–Yates. With it,
// the ADBench protocol in package dataset draws exactly the rows
// scikit-learn draws for the same seed, and package iforest grows the
// trees scikit-learn grows for the same random_state, so the reference
// figures in shared/anchors compare like with like.
//
// The generator is gonum's mathext/prng.MT19937, the Mersenne Twister of
// Matsumoto and Nishimura (1998) seeded by their init_genrand, which is
// what RandomState(seed) does for a seed below 2³²; the interval and
// shuffle rules follow NumPy's legacy behaviour (RandomState is frozen for
// reproducibility). Bounded applies the same rule to any source of 32-bit
// words.
package nprand
