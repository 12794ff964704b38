package smo_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/smo"
)

// The one-class SVM dual on three points: min ½αᵀKα s.t. Σα = 1,
// 0 ≤ α_i ≤ 1/(νn), with the linear kernel. Points (1, 0) and (0, 1) are
// orthogonal and (1, 1) is their sum, so K = [[1, 0, 1], [0, 1, 1], [1, 1, 2]]
// and the minimum puts α = ½ on each of the first two (f = ¼). No α is
// free, so ρ is the midpoint of the interval the KKT conditions allow:
// G = Kα = (½, ½, 1), the bounded ones need ρ ≥ ½, the zero one ρ ≤ 1.
func Example() {
	X := mat.NewDense(3, 2, []float64{1, 0, 0, 1, 1, 1})
	q := smo.NewKernelMatrix(kernel.Linear{}, X, nil, 1)
	nu := 2.0 / 3 // bounds 1/(νn) = ½
	c := []float64{0.5, 0.5, 0.5}
	res, err := smo.Solve(context.Background(), smo.Problem{Q: q, C: c, Delta: 1}, smo.Settings{Tol: 1e-9})
	if err != nil {
		panic(err)
	}
	fmt.Printf("nu %.3f: alpha %.3f, objective %.3f, %v\n", nu, res.Alpha, res.Objective, res.Status)
	fmt.Printf("rho %.3f in [%.3f, %.3f]\n", res.Rho, res.Lower, res.Upper)
	// Output:
	// nu 0.667: alpha [0.500 0.500 0.000], objective 0.250, optimal
	// rho 0.750 in [0.500, 1.000]
}
