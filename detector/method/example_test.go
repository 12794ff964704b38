package method_test

import (
	"fmt"

	"github.com/kernelad/anomaly/detector/method"
)

// Turn training scores into a threshold for a 20% contamination rate and
// label new scores against it.
func ExampleThresholdFromScores() {
	train := []float64{0.1, 0.4, 0.2, 0.9, 0.3, 0.5, 0.2, 1.5, 0.3, 0.4}
	t := method.ThresholdFromScores(train, 0.2)
	fmt.Printf("threshold %.2f\n", t)
	fmt.Println(method.Label(nil, []float64{0.3, 0.95, 2.0}, t))
	// Output:
	// threshold 0.58
	// [0 1 1]
}
