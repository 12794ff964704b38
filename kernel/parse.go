package kernel

import (
	"fmt"
	"math"
	"strings"
)

// Parse returns the kernel called name (case-insensitive): "rbf" or
// "gaussian" (RBF{gamma}), "laplacian" (Laplacian{gamma}), "poly" or
// "polynomial" (Polynomial{gamma, coef0, degree}) and "linear" (Linear{}).
// Parameters a kernel does not use are ignored. gamma must be finite and
// > 0, coef0 finite and degree ≥ 1 where they are used; otherwise, and for an
// unknown name, Parse returns an error that names the kernel and the value.
func Parse(name string, gamma, coef0 float64, degree int) (Kernel, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	checkGamma := func() error {
		if !(gamma > 0) || math.IsInf(gamma, 0) {
			return fmt.Errorf("kernel: %s: gamma must be a finite number > 0, got %g", n, gamma)
		}
		return nil
	}
	switch n {
	case "rbf", "gaussian":
		if err := checkGamma(); err != nil {
			return nil, err
		}
		return RBF{Gamma: gamma}, nil
	case "laplacian":
		if err := checkGamma(); err != nil {
			return nil, err
		}
		return Laplacian{Gamma: gamma}, nil
	case "poly", "polynomial":
		if err := checkGamma(); err != nil {
			return nil, err
		}
		if math.IsNaN(coef0) || math.IsInf(coef0, 0) {
			return nil, fmt.Errorf("kernel: %s: coef0 must be finite, got %g", n, coef0)
		}
		if degree < 1 {
			return nil, fmt.Errorf("kernel: %s: degree must be ≥ 1, got %d", n, degree)
		}
		return Polynomial{Gamma: gamma, Coef0: coef0, Degree: degree}, nil
	case "linear":
		return Linear{}, nil
	}
	return nil, fmt.Errorf("kernel: unknown kernel %q (want rbf, gaussian, laplacian, poly, polynomial or linear)", name)
}
