package kde

import (
	"fmt"
	"math"
	"strings"
)

// Kernel is a smoothing kernel of a density estimate, a radial profile
// K(r/h) with K(0) = 1 before normalisation. The zero value is Gaussian.
type Kernel int

// The kernels of scikit-learn's KernelDensity. With u = r/h (r the Euclidean
// distance to a training row, h the bandwidth) the unnormalised profiles are
//
//	Gaussian      exp(−u²/2)
//	Tophat        1            if u < 1
//	Epanechnikov  1 − u²       if u < 1
//	Exponential   exp(−u)
//	Linear        1 − u        if u < 1
//	Cosine        cos(πu/2)    if u < 1
//
// and zero elsewhere. The last four are called finite-support kernels except
// Exponential, which is positive everywhere as Gaussian is.
const (
	Gaussian Kernel = iota
	Tophat
	Epanechnikov
	Exponential
	Linear
	Cosine
)

var kernelNames = [...]string{"gaussian", "tophat", "epanechnikov", "exponential", "linear", "cosine"}

// String returns the kernel's lower-case name, as ParseKernel reads it.
func (k Kernel) String() string {
	if k < 0 || int(k) >= len(kernelNames) {
		return fmt.Sprintf("Kernel(%d)", int(k))
	}
	return kernelNames[k]
}

// ParseKernel returns the kernel with the given name (case-insensitive).
func ParseKernel(name string) (Kernel, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	for i, s := range kernelNames {
		if n == s {
			return Kernel(i), nil
		}
	}
	return 0, fmt.Errorf("kde: unknown kernel %q (want %s)", name, strings.Join(kernelNames[:], ", "))
}

func (k Kernel) valid() bool { return k >= Gaussian && k <= Cosine }

// finite reports whether the kernel is zero beyond u = 1.
func (k Kernel) finite() bool { return k != Gaussian && k != Exponential }

// logProfile returns log K(r/h) for a distance r ≥ 0; −Inf outside a finite
// support. For the Gaussian it takes the squared distance r2 = r² (and
// ignores r), so the exact scorer needs no square root.
func (k Kernel) logProfile(r, r2, h float64) float64 {
	switch k {
	case Gaussian:
		return -0.5 * (r2 / h) / h // not r2/(h·h), which underflows for tiny h
	case Tophat:
		if r < h {
			return 0
		}
	case Epanechnikov:
		if r < h {
			return math.Log(1 - (r2/h)/h)
		}
	case Exponential:
		return -r / h
	case Linear:
		if r < h {
			return math.Log(1 - r/h)
		}
	case Cosine:
		if r < h {
			return math.Log(math.Cos(0.5 * math.Pi * r / h))
		}
	}
	return math.Inf(-1)
}

// logVolume returns log V_d, the volume of the unit ball in d dimensions:
// V_d = π^(d/2) / Γ(d/2 + 1).
func logVolume(d int) float64 {
	lg, _ := math.Lgamma(0.5*float64(d) + 1)
	return 0.5*float64(d)*math.Log(math.Pi) - lg
}

// logSurface returns log S_n = log(2π V_(n−1)), the area of the unit sphere
// in n+1 dimensions (S_(d−1) is the area of the unit sphere bounding the
// unit ball of R^d, d·V_d).
func logSurface(n int) float64 {
	return math.Log(2*math.Pi) + logVolume(n-1)
}

// logNorm returns log c(h, d), the constant that makes c·K(‖x‖/h) a
// probability density on R^d: c = 1/(h^d ∫ K(‖u‖) du). The integrals
// ∫K = ∫_0^∞ K(r) S_(d−1) r^(d−1) dr, with S_(d−1) = d·V_d, are
//
//	Gaussian      (2π)^(d/2)
//	Tophat        V_d
//	Epanechnikov  V_d · 2/(d+2)
//	Exponential   S_(d−1) · Γ(d) = d·V_d·(d−1)!
//	Linear        V_d / (d+1)
//	Cosine        S_(d−1) · I_d,  I_d = ∫_0^1 r^(d−1) cos(πr/2) dr
//
// They are the constants of scikit-learn's KernelDensity
// (sklearn/neighbors, kernel_norm) except for the cosine kernel: there
// scikit-learn evaluates I_d by a finite alternating sum that drops the last
// boundary term for even d and cancels catastrophically for larger d (its
// density integrates to 0.363 for d = 2, 0.0045 for d = 6, 0.108 for d = 21,
// and its constant is NaN from d = 36 on; checked with scipy.integrate.quad).
// Here I_d comes from the series in cosineMoment, so every kernel integrates
// to one; for odd d ≤ 9 the two agree to 1e-11.
func (k Kernel) logNorm(h float64, d int) float64 {
	var f float64
	switch k {
	case Gaussian:
		f = 0.5 * float64(d) * math.Log(2*math.Pi)
	case Tophat:
		f = logVolume(d)
	case Epanechnikov:
		f = logVolume(d) + math.Log(2/(float64(d)+2))
	case Exponential:
		lg, _ := math.Lgamma(float64(d))
		f = logSurface(d-1) + lg
	case Linear:
		f = logVolume(d) - math.Log(float64(d)+1)
	case Cosine:
		f = math.Log(cosineMoment(d)) + logSurface(d-1)
	default:
		panic("kde: invalid kernel")
	}
	return -f - float64(d)*math.Log(h)
}

// cosineMoment returns I_d = ∫_0^1 r^(d−1) cos(πr/2) dr from the power
// series of the cosine, I_d = Σ_k (−1)^k (π/2)^(2k) / ((2k)! (d + 2k)). The
// terms are at most 1.24/d in size and the sum is about (π/2)/(d(d+1)), so
// about log10(d) digits cancel; 40 terms reach round-off.
func cosineMoment(d int) float64 {
	var s float64
	t := 1.0 // (π/2)^(2k) / (2k)!
	for k := 0; k < 40; k++ {
		term := t / float64(d+2*k)
		if k%2 == 1 {
			term = -term
		}
		s += term
		t *= (math.Pi / 2) * (math.Pi / 2) / float64((2*k+1)*(2*k+2))
	}
	return s
}
