package all_test

import (
	"fmt"

	"github.com/kernelad/anomaly/detector"
	_ "github.com/kernelad/anomaly/detector/all"
)

func Example() {
	fmt.Println(detector.Names())
	// Output:
	// [1stm expose gauss iforest kde kpca ocsvm r1stm r1svm svdd]
}
