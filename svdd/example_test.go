package svdd_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/scale"
	"github.com/kernelad/anomaly/smo"
	"github.com/kernelad/anomaly/svdd"
)

func Example_linear() {
	// Four corners of a square and its centre; with the linear kernel and
	// C = 1 (a hard sphere) the centre is the middle and R² = 2.
	X := mat.NewDense(5, 2, []float64{-1, -1, -1, 1, 1, -1, 1, 1, 0, 0})
	m, err := svdd.New(svdd.Config{C: 1, Kernel: kernel.Spec{Kind: "linear"}, Solver: smo.Settings{Tol: 1e-9},
		Common: method.Common{Scale: scale.None}}) // the centre in input units
	if err != nil {
		panic(err)
	}
	if err := m.Fit(context.Background(), X); err != nil {
		panic(err)
	}
	c, _ := m.Center()
	s, _ := m.Score(nil, mat.NewDense(2, 2, []float64{0, 0, 3, 0}))
	fmt.Printf("centre (%.3f, %.3f), R² %.3f\n", c[0]+0, c[1]+0, m.R2())
	fmt.Printf("scores: centre %.3f, (3, 0) %.3f\n", s[0], s[1])
	// Output:
	// centre (0.000, 0.000), R² 2.000
	// scores: centre -2.000, (3, 0) 7.000
}
