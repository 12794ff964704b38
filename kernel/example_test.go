package kernel_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/kernelad/anomaly/kernel"
	"gonum.org/v1/gonum/mat"
)

func ExampleGram() {
	X := mat.NewDense(3, 2, []float64{
		0, 0,
		1, 0,
		0, 2,
	})
	var K mat.SymDense
	kernel.Gram(&K, kernel.RBF{Gamma: 0.5}, X)
	fmt.Printf("%.4f\n", mat.Formatted(&K))
	// Output:
	// ⎡1.0000  0.6065  0.1353⎤
	// ⎢0.6065  1.0000  0.0821⎥
	// ⎣0.1353  0.0821  1.0000⎦
}

func ExampleParse() {
	k, err := kernel.Parse("laplacian", 0.5, 0, 0)
	fmt.Println(k, err)
	fmt.Printf("%.4f\n", k.Eval([]float64{0, 0}, []float64{1, -1})) // exp(−0.5·2)
	_, err = kernel.Parse("sigmoid", 1, 0, 0)
	fmt.Println(err)
	// Output:
	// laplacian(gamma=0.5) <nil>
	// 0.3679
	// kernel: unknown kernel "sigmoid" (want rbf, gaussian, laplacian, poly, polynomial or linear)
}

func ExampleScaleGamma() {
	X := mat.NewDense(3, 2, []float64{0, 1, 2, 3, 4, 5})
	fmt.Printf("scale %.6f\n", kernel.ScaleGamma(X)) // 1/(2·Var) = 6/35
	fmt.Printf("median %.6f\n", kernel.MedianGamma(X, rand.NewPCG(1, 1)))
	fmt.Printf("scott %.3f silverman %.3f\n", kernel.Scott(1281, 21), kernel.Silverman(1281, 21))
	// Output:
	// scale 0.171429
	// median 0.125000
	// scott 0.751 silverman 0.700
}
