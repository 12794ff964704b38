// Command loadfile reads one data file with dataset.Load and prints its
// dimensions: the readers alone, for peak-memory measurements such as
//
//	go build -o /tmp/loadfile ./dataset/testdata/loadfile
//	/usr/bin/time -v /tmp/loadfile FILE
//
// (a testdata folder, so ./... does not build it).
package main

import (
	"fmt"
	"os"

	"github.com/kernelad/anomaly/dataset"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: loadfile FILE")
		os.Exit(2)
	}
	ds, err := dataset.Load(os.Args[1], dataset.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	r, c := ds.X.Dims()
	fmt.Println(r, c, ds.Shape)
}
