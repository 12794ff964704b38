package kernel

import "math"

// EvalSparse returns k(a, b) for two sparse rows given by their non-zeros
// (indices sorted ascending, as in a CSR row), reading only those entries:
// squared and L1 distances and inner products are merges of the two index
// lists. ok is false for a kernel that needs dense rows (one not defined
// in this package); the caller then scatters the rows itself.
func EvalSparse(k Kernel, ai []int, av []float64, bi []int, bv []float64) (v float64, ok bool) {
	switch k := canon(k).(type) {
	case RBF:
		return math.Exp(-k.Gamma * sparseSqDist(ai, av, bi, bv)), true
	case Laplacian:
		return math.Exp(-k.Gamma * sparseL1Dist(ai, av, bi, bv)), true
	case Matern:
		return k.of(sparseSqDist(ai, av, bi, bv)), true
	case Linear:
		return SparseDot(ai, av, bi, bv), true
	case Polynomial:
		return k.of(SparseDot(ai, av, bi, bv)), true
	}
	return 0, false
}

// SparseDot returns ⟨a, b⟩ for two sparse rows with sorted indices.
func SparseDot(ai []int, av []float64, bi []int, bv []float64) float64 {
	var s float64
	p, q := 0, 0
	for p < len(ai) && q < len(bi) {
		switch x, y := ai[p], bi[q]; {
		case x == y:
			s += av[p] * bv[q]
			p++
			q++
		case x < y:
			p++
		default:
			q++
		}
	}
	return s
}
