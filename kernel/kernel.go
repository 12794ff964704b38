package kernel

import (
	"fmt"
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

// Compile-time checks of the capabilities each kernel offers.
var (
	_ Isotropic      = RBF{}
	_ ShiftInvariant = Laplacian{}
	_ Isotropic      = Matern{}
	_ Kernel         = Polynomial{}
	_ Kernel         = Linear{}
)

// RBF is the Gaussian kernel exp(−γ‖x − y‖²), γ > 0.
type RBF struct{ Gamma float64 }

// Eval returns exp(−γ‖x − y‖²).
func (k RBF) Eval(x, y []float64) float64 { return math.Exp(-k.Gamma * SqDist(x, y)) }

// SampleFrequency draws ω ~ N(0, 2γI).
func (k RBF) SampleFrequency(w []float64, rng *rand.Rand) {
	s := math.Sqrt2 * math.Sqrt(k.Gamma) // not √(2γ): 2γ overflows above 9e307
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
	return math.Sqrt2 * math.Sqrt(k.Gamma) * math.Sqrt(s)
}

// String returns "rbf(gamma=γ)".
func (k RBF) String() string { return fmt.Sprintf("rbf(gamma=%g)", k.Gamma) }

// Laplacian is the kernel exp(−γ‖x − y‖₁), γ > 0: a product over
// coordinates of one-dimensional Laplace kernels. (scikit-learn's
// laplacian_kernel.)
type Laplacian struct{ Gamma float64 }

// Eval returns exp(−γ‖x − y‖₁).
func (k Laplacian) Eval(x, y []float64) float64 { return math.Exp(-k.Gamma * L1Dist(x, y)) }

// SampleFrequency draws ω with independent Cauchy(0, γ) coordinates: the
// characteristic function of Cauchy(0, s) is exp(−s|t|), so
// E[cos(ωᵀδ)] = Π_i exp(−γ|δ_i|) = exp(−γ‖δ‖₁).
func (k Laplacian) SampleFrequency(w []float64, rng *rand.Rand) {
	for i := range w {
		// Inverse CDF of Cauchy(0, γ): γ tan(π(u − ½)), u ∈ (0, 1); the
		// tail beyond the float64 range (γ near its maximum) is clamped.
		w[i] = max(-math.MaxFloat64, min(math.MaxFloat64, k.Gamma*math.Tan(math.Pi*(openUnit(rng)-0.5))))
	}
}

// String returns "laplacian(gamma=γ)".
func (k Laplacian) String() string { return fmt.Sprintf("laplacian(gamma=%g)", k.Gamma) }

// Polynomial is the kernel (γ⟨x, y⟩ + c₀)^degree, as scikit-learn's
// polynomial_kernel. It is positive definite for γ > 0, c₀ ≥ 0 and
// degree ≥ 1.
type Polynomial struct {
	Gamma, Coef0 float64
	Degree       int
}

// Eval returns (γ⟨x, y⟩ + c₀)^degree.
func (k Polynomial) Eval(x, y []float64) float64 { return k.of(Dot(x, y)) }

func (k Polynomial) of(dot float64) float64 { return powi(k.Gamma*dot+k.Coef0, k.Degree) }

// String returns "poly(gamma=γ, coef0=c₀, degree=p)".
func (k Polynomial) String() string {
	return fmt.Sprintf("poly(gamma=%g, coef0=%g, degree=%d)", k.Gamma, k.Coef0, k.Degree)
}

// Linear is the kernel ⟨x, y⟩.
type Linear struct{}

// Eval returns ⟨x, y⟩.
func (Linear) Eval(x, y []float64) float64 { return Dot(x, y) }

// String returns "linear".
func (Linear) String() string { return "linear" }

// Matern is the Matérn kernel of smoothness ν ∈ {½, 3/2, 5/2} and length
// scale ℓ > 0, on the Euclidean distance r = ‖x − y‖ (with s = √(2ν)·r/ℓ):
//
//	ν = ½:  exp(−s)
//	ν = 3/2: (1 + s) exp(−s)
//	ν = 5/2: (1 + s + s²/3) exp(−s)
//
// Other values of ν panic (the half-integer closed forms are the ones in
// use; general ν needs a Bessel function).
type Matern struct {
	Nu, Length float64
}

// Eval returns the Matérn kernel value.
func (k Matern) Eval(x, y []float64) float64 { return k.of(SqDist(x, y)) }

func (k Matern) of(sq float64) float64 {
	s := math.Sqrt(2*k.Nu*sq) / k.Length
	switch k.Nu {
	case 0.5:
		return math.Exp(-s)
	case 1.5:
		return (1 + s) * math.Exp(-s)
	case 2.5:
		return (1 + s + s*s/3) * math.Exp(-s)
	}
	panic(fmt.Sprintf("kernel: Matern with unsupported nu %g (want 0.5, 1.5 or 2.5)", k.Nu))
}

// SampleFrequency draws ω from the multivariate Student t distribution with
// 2ν degrees of freedom and scale 1/ℓ: ω = g·√(2ν/u)/ℓ with g ~ N(0, I) and
// u ~ χ²_{2ν} (a sum of 2ν squared normals, since 2ν is an integer).
func (k Matern) SampleFrequency(w []float64, rng *rand.Rand) {
	s := k.tScale(rng)
	for i := range w {
		w[i] = s * rng.NormFloat64()
	}
}

// SampleRadius draws ‖ω‖ for the distribution of SampleFrequency.
func (k Matern) SampleRadius(d int, rng *rand.Rand) float64 {
	s := k.tScale(rng)
	var r float64
	for i := 0; i < d; i++ {
		g := rng.NormFloat64()
		r += g * g
	}
	return s * math.Sqrt(r)
}

func (k Matern) tScale(rng *rand.Rand) float64 {
	nu2 := int(2 * k.Nu)
	if float64(nu2) != 2*k.Nu || nu2 < 1 || nu2 > 5 {
		panic(fmt.Sprintf("kernel: Matern with unsupported nu %g (want 0.5, 1.5 or 2.5)", k.Nu))
	}
	var u float64
	for i := 0; i < nu2; i++ {
		g := rng.NormFloat64()
		u += g * g
	}
	return math.Sqrt(float64(nu2)/u) / k.Length
}

// String returns "matern(nu=ν, length=ℓ)".
func (k Matern) String() string { return fmt.Sprintf("matern(nu=%g, length=%g)", k.Nu, k.Length) }

// openUnit returns a uniform variate in the open interval (0, 1).
func openUnit(rng *rand.Rand) float64 {
	for {
		if u := rng.Float64(); u > 0 {
			return u
		}
	}
}

// powi returns b^p for an integer p ≥ 0 by repeated squaring.
func powi(b float64, p int) float64 {
	if p < 0 {
		return 1 / powi(b, -p)
	}
	r := 1.0
	for p > 0 {
		if p&1 == 1 {
			r *= b
		}
		b *= b
		p >>= 1
	}
	return r
}

// SqDist returns ‖x − y‖². It panics if the lengths differ.
func SqDist(x, y []float64) float64 { return sumDiff(x, y, false) }

// L1Dist returns ‖x − y‖₁. It panics if the lengths differ.
func L1Dist(x, y []float64) float64 { return sumDiff(x, y, true) }

// sumDiff returns Σ_i distTerm(x_i − y_i, l1), summed in order: L1Dist when
// l1, else SqDist (sparseSumDiff is its form for two sparse rows). It
// panics if the lengths differ.
func sumDiff(x, y []float64, l1 bool) float64 {
	if len(x) != len(y) {
		panic("kernel: length mismatch")
	}
	var s float64
	for i, v := range x {
		s += distTerm(v-y[i], l1)
	}
	return s
}

// distTerm returns |d| when l1, else d²: a coordinate's term of the L1
// distance or of the squared Euclidean one.
func distTerm(d float64, l1 bool) float64 {
	if l1 {
		return math.Abs(d)
	}
	return d * d
}

// Dot returns ⟨x, y⟩. It panics if the lengths differ.
func Dot(x, y []float64) float64 {
	if len(x) != len(y) {
		panic("kernel: length mismatch")
	}
	var s float64
	for i, v := range x {
		s += v * y[i]
	}
	return s
}
