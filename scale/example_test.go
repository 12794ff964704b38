package scale_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/scale"
)

func ExampleMinMax() {
	train := mat.NewDense(3, 2, []float64{0, 5, 5, 5, 10, 5})
	var s scale.MinMax
	s.Fit(train)
	var out mat.Dense
	s.Transform(&out, mat.NewDense(1, 2, []float64{20, 7}))
	fmt.Println(out.RawMatrix().Data) // column 2 is constant: range 1, as scikit-learn
	// Output: [2 2]
}

func ExampleFit() {
	// Two features in very different units: metres and grams.
	train := mat.NewDense(4, 2, []float64{
		1.0, 2000,
		2.0, 4000,
		3.0, 6000,
		4.0, 8000,
	})
	st, _ := scale.Fit(scale.Standardize, train)
	out, _ := st.Apply(mat.NewDense(1, 2, []float64{2.5, 5000}))
	fmt.Println(mat.Formatted(out))
	// Output: [0  0]
}
