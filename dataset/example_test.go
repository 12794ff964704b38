package dataset_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/kernelad/anomaly/dataset"
	"gonum.org/v1/gonum/mat"
)

func ExampleLoad() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "data.csv")
	os.WriteFile(path, []byte("temp,pressure,label\n20.5,1.01,0\n21.0,0.99,0\n80.0,3.50,1\n"), 0o644)

	ds, err := dataset.Load(path, dataset.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ds.Columns, ds.Y)
	fmt.Println(mat.Formatted(ds.X))

	// A bad cell is one line naming the file, row (the header is row 1) and column.
	os.WriteFile(path, []byte("temp,pressure,label\n20.5,1.01,0\n21.0,n/a,0\n"), 0o644)
	_, err = dataset.Load(path, dataset.Options{})
	fmt.Println(err.Error()[len(dir)+1:])
	// Output:
	// [temp pressure] [0 0 1]
	// ⎡20.5  1.01⎤
	// ⎢  21  0.99⎥
	// ⎣  80   3.5⎦
	// data.csv: row 3, column 2: "pressure": "n/a" marks a missing value, and missing values are not supported: drop or impute those rows first
}

func ExampleSplitADBench() {
	ds := dataset.GaussianMixture(20000, 5, 0.02, rand.NewPCG(1, 1))
	train, test, err := dataset.SplitADBench(ds, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(train.Rows(), train.Anomalies(), test.Rows(), test.Anomalies())
	// Output: 7000 140 3000 60
}

func ExampleStratifiedSplit() {
	y := []int{0, 0, 0, 0, 0, 0, 0, 1, 1, 1} // 7 normal, 3 anomalies
	train, test := dataset.StratifiedSplit(y, 0.3, rand.NewPCG(1, 2))
	// ⌈0.3·10⌉ = 3 test rows and 7 train rows: 7·7/10 = 4.9 normal and
	// 3·7/10 = 2.1 anomalous train rows round down to 4 + 2, and the largest
	// remainder (0.9) gives the seventh train row to the normal class.
	na := 0
	for _, i := range train {
		na += y[i]
	}
	fmt.Println(len(train), na, len(test))
	// Output: 7 2 3
}
