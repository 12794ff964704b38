package cpd_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/cpd"
	"github.com/kernelad/anomaly/tensor"
)

// A rank-2 tensor built from known factors is recovered exactly, in the
// normal form of the package (unit columns, λ sorted, fixed signs).
func Example() {
	truth := &cpd.Kruskal{
		Weights: []float64{3, 1},
		Factors: []*mat.Dense{
			mat.NewDense(3, 2, []float64{1, 0, 0, 1, 0, 0}),
			mat.NewDense(2, 2, []float64{0.6, 1, 0.8, 0}),
			mat.NewDense(2, 2, []float64{0, 0.6, -1, 0.8}),
		},
	}
	x := truth.Full()
	k, err := cpd.Decompose(context.Background(), x, cpd.Config{Rank: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("λ = %.4f, converged: %v, FMS vs truth: %.4f\n", k.Weights, k.Converged, cpd.FMS(&k, truth))
	// Columns printed as rows. In modes 0 and 1 each column's largest
	// entry is positive; the sign of the first component went into mode 2.
	for n, f := range k.Factors {
		fmt.Printf("A_%d = %v\n", n, round(mat.DenseCopyOf(f.T())))
	}

	// A rank above the smallest side cannot be initialised from the SVD.
	_, err = cpd.Decompose(context.Background(), x, cpd.Config{Rank: 3})
	fmt.Println(err != nil)
	// Output:
	// λ = [3.0000 1.0000], converged: true, FMS vs truth: 1.0000
	// A_0 = [[1 0 0] [0 1 0]]
	// A_1 = [[0.6 0.8] [1 0]]
	// A_2 = [[0 -1] [0.6 0.8]]
	// true
}

// DecomposeBatch factorises every row of a batch matrix (one sample tensor
// per row, flattened row-major) on all cores.
func ExampleDecomposeBatch() {
	rng := rand.New(rand.NewPCG(1, 2))
	shape := []int{4, 3, 5}
	X := mat.NewDense(100, 60, nil)
	for i := range 100 {
		// Sample i is the rank-one tensor u ∘ v ∘ w with random positive
		// vectors, so one component explains it exactly.
		t := tensor.Zeros(shape...)
		u, v, w := randVec(rng, 4), randVec(rng, 3), randVec(rng, 5)
		for a := range 4 {
			for b := range 3 {
				for c := range 5 {
					t.Set(u[a]*v[b]*w[c], a, b, c)
				}
			}
		}
		X.SetRow(i, t.Data())
	}
	ks, err := cpd.DecomposeBatch(context.Background(), X, shape, cpd.Config{Rank: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	worst := 0.0
	for _, k := range ks {
		worst = max(worst, k.RelErr)
	}
	fmt.Println(len(ks), "decompositions, worst relative error below 1e-6:", worst < 1e-6)

	_, err = cpd.DecomposeBatch(context.Background(), X, []int{4, 4, 4}, cpd.Config{Rank: 1})
	fmt.Println(err)
	// Output:
	// 100 decompositions, worst relative error below 1e-6: true
	// tensor: shape 4x4x4 has 64 elements but the data has 60 per sample
}

// round returns the rows of m rounded to 4 decimals, without negative zeros.
func round(m *mat.Dense) [][]float64 {
	r, c := m.Dims()
	out := make([][]float64, r)
	for i := range r {
		out[i] = make([]float64, c)
		for j := range c {
			out[i][j] = math.Round(m.At(i, j)*1e4)/1e4 + 0
		}
	}
	return out
}

func randVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 0.5 + rng.Float64()
	}
	return v
}
