// Command loadfile reads one data file with dataset.Load and prints its
// dimensions and the time Load took: the readers alone, in a fresh process
// (memory straight from the operating system, as a command line sees it),
// for peak-memory and one-shot timings such as
//
//	go build -o /tmp/loadfile ./dataset/testdata/loadfile
//	/usr/bin/time -v /tmp/loadfile FILE
//
// dataset/testdata/numpy_oneshot.py times NumPy the same way.
//
// (a testdata folder, so ./... does not build it).
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/kernelad/anomaly/dataset"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: loadfile FILE")
		os.Exit(2)
	}
	t0 := time.Now()
	ds, err := dataset.Load(os.Args[1], dataset.Options{})
	elapsed := time.Since(t0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	r, c := ds.X.Dims()
	fmt.Printf("%d %d %v load %.2f ms\n", r, c, ds.Shape, elapsed.Seconds()*1e3)
}
