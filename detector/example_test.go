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

// A detector built from the registry with key=value parameters (the
// command line's --set) describes the parameters it resolved: given ones
// as given, the rest at their declared defaults.
func ExampleDescribe() {
	d, err := detector.New("test-meandist", map[string]string{"contamination": "0.2"})
	if err != nil {
		panic(err)
	}
	name, params, _ := detector.Describe(d)
	fmt.Println(name, params)
	_, err = detector.New("test-meandist", map[string]string{"contamination": "0"})
	fmt.Println(err)
	// Output:
	// test-meandist map[contamination:0.2 scale:standard]
	// method test-meandist: parameter contamination="0": must be in (0, 0.5]
}
