package dataset_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/method"
)

// A File is a detector.Source, and a RowReader a method.RowReader:
// package dataset does not import detector, Go's interfaces match them.
var (
	_ detector.Source  = dataset.File(nil)
	_ method.RowReader = dataset.RowReader(nil)
)

func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "data.csv")
	os.WriteFile(path, []byte("temp,pressure,label\n20.5,1.01,1\n21.0,0.99,1\n80.0,3.50,-1\n19.5,1.00,1\n"), 0o644)

	f, err := dataset.Open(path, dataset.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	rows, cols := f.Dims()
	fmt.Println(rows, cols, f.Columns(), f.Labels().Final) // a text file's rows are known once read

	// Rows in chunks of at most 3, with their labels as the file writes
	// them; a chunk is valid only during the call.
	var labels []int
	err = f.ScanLabeled(context.Background(), 3, func(lo int, X mat.Matrix, y []int) error {
		r, _ := X.Dims()
		fmt.Printf("rows %d to %d: first %v\n", lo, lo+r-1, X.At(0, 0))
		labels = append(labels, y...)
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// After the pass: the rows are known, and so is what the labels
	// mean (1 and -1 with the 1s a majority: the one-class convention).
	rows, _ = f.Dims()
	y, _ := f.Labels().Resolve(labels)
	fmt.Println(rows, f.Labels().OneClass, y)
	// Output:
	// -1 2 [temp pressure] false
	// rows 0 to 2: first 20.5
	// rows 3 to 3: first 19.5
	// 4 true [0 0 1 0]
}
