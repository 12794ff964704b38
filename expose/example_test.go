package expose_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/kernelad/anomaly/detector"

	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/expose"
	"github.com/kernelad/anomaly/kernel"
	"gonum.org/v1/gonum/mat"
)

// Fit EXPoSE on a cloud of points around the origin and score a point in
// the cloud and one far from it.
func Example() {
	rng := rand.New(rand.NewPCG(1, 1))
	X := mat.NewDense(500, 2, nil)
	for i := 0; i < 500; i++ {
		X.Set(i, 0, rng.NormFloat64())
		X.Set(i, 1, rng.NormFloat64())
	}
	d, err := expose.New(expose.Config{Map: expose.RFF, Kernel: kernel.Spec{Gamma: 0.5}, Features: 500, Src: rand.NewPCG(2, 2)})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := d.Fit(context.Background(), X); err != nil {
		fmt.Println(err)
		return
	}
	Y := mat.NewDense(2, 2, []float64{0.1, -0.2, 6, 6})
	scores, _ := d.Score(nil, Y)
	labels := method.Label(nil, scores, d.Threshold())
	fmt.Println("far point scores higher:", scores[1] > scores[0])
	fmt.Println("labels:", labels)
	// Output:
	// far point scores higher: true
	// labels: [0 1]
}

// The SGD solver of Algorithm 1 with the number of iterations derived from a
// target accuracy: T = ⌈M²/ε²⌉ = 400 for M = 1, ε = 0.05.
func Example_sgd() {
	d, err := detector.New("expose", map[string]string{"solver": "sgd", "epsilon": "0.05", "seed": "1"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.(*expose.EXPoSE).Iterations())
	// Output: 400
}

// Nyström features on 200 landmark rows: the scores rise from a point in
// the cloud to one at its edge and one far from it, in the order of their
// kernel means.
func Example_nystrom() {
	rng := rand.New(rand.NewPCG(1, 1))
	X := mat.NewDense(500, 2, nil)
	for i := 0; i < 500; i++ {
		X.Set(i, 0, rng.NormFloat64())
		X.Set(i, 1, rng.NormFloat64())
	}
	d, err := detector.New("expose", map[string]string{"map": "nystrom", "landmarks": "200", "gamma": "0.5", "scale": "none", "seed": "2"})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := d.Fit(context.Background(), X); err != nil {
		fmt.Println(err)
		return
	}
	Y := mat.NewDense(3, 2, []float64{0.1, -0.2, 3, 3, 6, 6})
	scores, _ := d.Score(nil, Y)
	fmt.Println("ordered:", scores[0] < scores[1] && scores[1] < scores[2])
	fmt.Println("labels:", method.Label(nil, scores, d.Threshold()))
	// Output:
	// ordered: true
	// labels: [0 1 1]
}
