package randfeat_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/randfeat"
	"gonum.org/v1/gonum/mat"
)

// Random Fourier features approximate the Gaussian kernel by an inner
// product of explicit D-dimensional vectors.
func ExampleNewFourier() {
	k := kernel.RBF{Gamma: 0.5}
	f := randfeat.NewFourier(k, 2, 20000, rand.NewPCG(1, 1))
	X := mat.NewDense(2, 2, []float64{0, 0, 1, 0.5})
	var Z mat.Dense
	f.Transform(&Z, X)
	approx := mat.Dot(Z.RowView(0), Z.RowView(1))
	exact := k.Eval(X.RawRowView(0), X.RawRowView(1))
	fmt.Printf("exact %.3f, |error| < 0.02: %v\n", exact, math.Abs(approx-exact) < 0.02)
	// Output: exact 0.535, |error| < 0.02: true
}

// With every row as a landmark the Nyström map reproduces the kernel.
func ExampleNewNystrom() {
	k := kernel.RBF{Gamma: 1}
	X := mat.NewDense(3, 1, []float64{0, 1, 3})
	ny, err := randfeat.NewNystrom(k, X)
	if err != nil {
		fmt.Println(err)
		return
	}
	var Z mat.Dense
	ny.Transform(&Z, X)
	fmt.Printf("%.4f %.4f\n", mat.Dot(Z.RowView(0), Z.RowView(1)), k.Eval([]float64{0}, []float64{1}))
	// Output: 0.3679 0.3679
}

// TransformRow maps one row into a caller's buffer without allocating.
func ExampleFourier_TransformRow() {
	o := randfeat.NewOrthogonal(kernel.RBF{Gamma: 1}, 3, 8, rand.NewPCG(2, 2))
	buf := make([]float64, 0, o.Dim())
	z := o.TransformRow(buf, []float64{0.1, 0.2, 0.3})
	fmt.Println(len(z), &z[0] == &buf[:1][0], math.Abs(mat.Norm(mat.NewVecDense(8, z), 2)) <= 1)
	// Output: 8 true true
}
