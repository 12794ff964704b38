package cpd

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/tensor"
)

// planted returns X = [[A_0, …, A_{N−1}]] + E with N(0,1) factor entries
// and Gaussian noise E scaled to ‖E‖ = noise·‖X0‖ (the construction of
// make_problem in ../shared/anchors/cpals_ref.py), and the planted factors.
func planted(rng *rand.Rand, shape []int, R int, noise float64) (x, x0 *tensor.Dense, truth *Kruskal) {
	truth = &Kruskal{Weights: make([]float64, R), Factors: make([]*mat.Dense, len(shape))}
	for r := range truth.Weights {
		truth.Weights[r] = 1
	}
	for n, s := range shape {
		d := make([]float64, s*R)
		for i := range d {
			d[i] = rng.NormFloat64()
		}
		truth.Factors[n] = mat.NewDense(s, R, d)
	}
	x0 = truth.Full()
	x = x0.Clone()
	if noise > 0 {
		e := make([]float64, x.Len())
		for i := range e {
			e[i] = rng.NormFloat64()
		}
		floats.AddScaled(x.Data(), noise*x0.Norm()/floats.Norm(e, 2), e)
	}
	return x, x0, truth
}

// relErr returns ‖X − [[k]]‖/‖X‖ computed explicitly.
func relErr(x *tensor.Dense, k *Kruskal) float64 {
	f := k.Full()
	return floats.Distance(x.Data(), f.Data(), 2) / x.Norm()
}

var _ = math.Abs
