package symeig_test

import (
	"context"
	"fmt"

	"github.com/kernelad/anomaly/internal/symeig"
	"gonum.org/v1/gonum/mat"
)

// The eigenpairs of a 3 × 3 symmetric matrix, largest first: only its
// lower triangle is read.
func Example() {
	a := mat.NewDense(3, 3, []float64{
		2, 0, 0,
		1, 2, 0,
		0, 0, 5,
	})
	vals, vecs, err := symeig.Reduce(a).All(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.4f\n", vals)
	v := vecs.ColView(1) // the eigenvector of 3: (1, 1, 0)/√2 up to sign
	fmt.Printf("%.4f %.4f %.4f\n", abs(v.AtVec(0)), abs(v.AtVec(1)), abs(v.AtVec(2)))
	// Output:
	// [5.0000 3.0000 1.0000]
	// 0.7071 0.7071 0.0000
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
