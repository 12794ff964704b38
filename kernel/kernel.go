package kernel

import (
	"math"
	"math/rand/v2"
)

// Kernel is a positive-definite kernel on vectors of equal length.
type Kernel interface {
	Eval(x, y []float64) float64
}

// ShiftInvariant is a kernel k(x, y) = κ(x − y) with κ(0) = 1. By Bochner's
// theorem κ(δ) = E_ω[cos(ωᵀδ)] for a probability measure p(ω), its spectral
// distribution; SampleFrequency draws one ω ∈ R^len(w) from it into w.
// Random Fourier features are built on this.
type ShiftInvariant interface {
	Kernel
	SampleFrequency(w []float64, rng *rand.Rand)
}

// Isotropic is a shift-invariant kernel whose spectral distribution is
// rotation invariant, so a frequency is a uniformly random direction times a
// radius drawn by SampleRadius. Orthogonal random features need this.
type Isotropic interface {
	ShiftInvariant
	SampleRadius(d int, rng *rand.Rand) float64
}

// RBF is the Gaussian kernel exp(−γ‖x − y‖²), γ > 0.
type RBF struct{ Gamma float64 }

// Eval returns exp(−γ‖x − y‖²).
func (k RBF) Eval(x, y []float64) float64 { return math.Exp(-k.Gamma * SqDist(x, y)) }

// SampleFrequency draws ω ~ N(0, 2γI).
func (k RBF) SampleFrequency(w []float64, rng *rand.Rand) {
	s := math.Sqrt(2 * k.Gamma)
	for i := range w {
		w[i] = s * rng.NormFloat64()
	}
}

// SampleRadius draws ‖ω‖ for ω ~ N(0, 2γI_d): √(2γ) times a χ_d variate.
func (k RBF) SampleRadius(d int, rng *rand.Rand) float64 {
	var s float64
	for i := 0; i < d; i++ {
		g := rng.NormFloat64()
		s += g * g
	}
	return math.Sqrt(2 * k.Gamma * s)
}

// SqDist returns ‖x − y‖². It panics if the lengths differ.
func SqDist(x, y []float64) float64 {
	if len(x) != len(y) {
		panic("kernel: length mismatch")
	}
	var s float64
	for i, v := range x {
		d := v - y[i]
		s += d * d
	}
	return s
}
