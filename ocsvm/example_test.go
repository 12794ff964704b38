package ocsvm_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/ocsvm"
	"github.com/kernelad/anomaly/scale"
)

func Example() {
	// Eight points on a small square grid and one far away.
	X := mat.NewDense(9, 2, []float64{
		0, 0, 0, 1, 1, 0, 1, 1,
		0.5, 0, 0, 0.5, 1, 0.5, 0.5, 1,
		5, 5,
	})
	// scikit-learn's settings: no scale stage, ν = 0.5, γ = 0.5.
	m, err := ocsvm.New(ocsvm.Config{Nu: 0.5, Kernel: kernel.Spec{Gamma: 0.5},
		Common: method.Common{Scale: scale.None}})
	if err != nil {
		panic(err)
	}
	if err := m.Fit(context.Background(), X); err != nil {
		panic(err)
	}
	s, _ := m.Score(nil, mat.NewDense(2, 2, []float64{0.5, 0.5, 4, 4}))
	fmt.Printf("centre %.3f, far point %.3f\n", s[0], s[1])
	fmt.Println("far point more anomalous:", s[1] > s[0])
	// scikit-learn 1.2's OneClassSVM(gamma=0.5, nu=0.5) gives
	// −decision_function = −0.4675 and 1.8903, νn = 4.5 times these.

	// Output:
	// centre -0.104, far point 0.420
	// far point more anomalous: true
}
