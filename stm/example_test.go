package stm_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/stm"
)

// Samples are 6×5 matrices (order-2 tensors), one per row. Normal samples
// are close to one rank-one pattern; the last row is noise.
func Example() {
	rng := rand.New(rand.NewPCG(1, 2))
	X := mat.NewDense(101, 30, nil)
	for i := range 100 {
		for a := range 6 {
			for b := range 5 {
				v := (1 + math.Sin(float64(a))) * (1 + math.Cos(float64(b))) * (1 + 0.02*rng.NormFloat64())
				X.Set(i, a*5+b, v/4)
			}
		}
	}
	for j := range 30 {
		X.Set(100, j, rng.Float64())
	}
	d, err := stm.NewR1STM(stm.R1STMConfig{Common: stm.Common{Shape: []int{6, 5}, Src: rand.NewPCG(3, 4)}})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := d.Fit(context.Background(), X); err != nil {
		fmt.Println(err)
		return
	}
	s, _ := d.Score(nil, X)
	highest := 0
	for i := range s {
		if s[i] > s[highest] {
			highest = i
		}
	}
	fmt.Println("most anomalous row:", highest)

	_, err = d.Score(nil, mat.NewDense(1, 24, nil))
	fmt.Println(err)
	// Output:
	// most anomalous row: 100
	// r1stm: wrong feature count: data has 24 columns, the model was fitted on 30 (tensor: shape 6x5 has 30 elements but the data has 24 per sample)
}
