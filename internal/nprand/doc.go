// Package nprand reproduces the parts of NumPy's legacy random generator
// (numpy.random.RandomState, MT19937) that scikit-learn's data splitting
// uses, bit for bit: integer seeding, bounded integers by masked rejection,
// and permutation by Fisher–Yates. With it, the ADBench protocol in package
// dataset draws exactly the rows scikit-learn draws for the same seed, so
// the reference figures in shared/anchors compare like with like.
//
// The generator is the standard Mersenne Twister of Matsumoto and Nishimura
// (1998); the seeding, interval and shuffle rules follow NumPy's
// documented legacy behaviour (RandomState is frozen for reproducibility).
package nprand
