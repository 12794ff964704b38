package oneclass_test

import (
	"context"
	"fmt"

	"github.com/kernelad/anomaly/detector/method/oneclass"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/smo"
	"gonum.org/v1/gonum/mat"
)

// The ν one-class SVM on five points of a line with an RBF kernel: the α
// sum to 1, and only the point far from the others scores clearly above
// zero (outside the support).
func ExampleNu() {
	X := mat.NewDense(5, 1, []float64{1, 1.1, 0.9, 1.05, 3})
	q := smo.NewKernelMatrix(kernel.RBF{Gamma: 1}, X, nil, 1)
	sol, train, err := oneclass.Nu(context.Background(), q, 0.5, smo.Settings{Tol: 1e-6})
	if err != nil {
		fmt.Println(err)
		return
	}
	var sum float64
	for _, a := range sol.Alpha {
		sum += a
	}
	fmt.Printf("Σα = %.3f\n", sum)
	for i, s := range train {
		if s > 0.01 {
			fmt.Printf("x = %.2f is outside: score %.3f\n", X.At(i, 0), s)
		}
	}
	// Output:
	// Σα = 1.000
	// x = 3.00 is outside: score 0.185
}
