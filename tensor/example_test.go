package tensor_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/tensor"
)

// Rows of a batch matrix are sample tensors flattened row-major; RowView
// reads one in place, and Unfold matricises it.
func Example() {
	// Two samples of shape 2×3, one per row.
	X := mat.NewDense(2, 6, []float64{
		1, 2, 3, 4, 5, 6,
		0, 1, 0, 1, 0, 1,
	})
	x, err := tensor.RowView(X, 0, []int{2, 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("x[1,2] =", x.At(1, 2))

	var u mat.Dense
	x.Unfold(&u, 1) // X_(1): 3 × 2
	fmt.Printf("X_(1) =\n%v\n", mat.Formatted(&u))

	fmt.Printf("‖x‖ = %.4f\n", x.Norm())

	// A shape that does not describe the rows is an error.
	_, err = tensor.RowView(X, 0, []int{4, 2})
	fmt.Println(err)
	// Output:
	// x[1,2] = 6
	// X_(1) =
	// ⎡1  4⎤
	// ⎢2  5⎥
	// ⎣3  6⎦
	// ‖x‖ = 9.5394
	// tensor: shape 4x2 has 8 elements but the data has 6 per sample
}

// The Khatri–Rao product pairs with Unfold: X_(n) = A_n · KR(others)ᵀ.
func ExampleKhatriRao() {
	a := mat.NewDense(2, 1, []float64{1, 2})
	b := mat.NewDense(3, 1, []float64{1, 10, 100})
	var kr mat.Dense
	tensor.KhatriRao(&kr, a, b) // a varies slowest
	fmt.Println(mat.Formatted(kr.T()))
	// Output:
	// [  1   10  100    2   20  200]
}
