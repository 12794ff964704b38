package detector_test

import (
	"fmt"

	"github.com/kernelad/anomaly/detector"
)

// Turn training scores into a threshold for a 20% contamination rate and
// label new scores against it.
func ExampleThresholdFromScores() {
	train := []float64{0.1, 0.4, 0.2, 0.9, 0.3, 0.5, 0.2, 1.5, 0.3, 0.4}
	t := detector.ThresholdFromScores(train, 0.2)
	fmt.Printf("threshold %.2f\n", t)
	fmt.Println(detector.Label(nil, []float64{0.3, 0.95, 2.0}, t))
	// Output:
	// threshold 0.58
	// [0 1 1]
}

// Parameters arrive as key=value strings (the command line's --set); typed
// getters read them and Err reports anything misspelt.
func ExampleParams() {
	p := detector.NewParams("expose", map[string]string{"features": "500", "gama": "2"})
	fmt.Println(p.Int("features", 2000), p.String("gamma", "scale"))
	fmt.Println(p.Err())
	// Output:
	// 500 scale
	// method expose: unknown parameter gama (known: features, gamma)
}
