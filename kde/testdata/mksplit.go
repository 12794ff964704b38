//go:build ignore

// mksplit writes the train/test rows that the scikit-learn golden script
// (golden.py) and the Go tests both read, so the two sides see the same
// numbers: seed 1 of the ADBench protocol (dataset.SplitADBench) on cardio
// and thyroid, keeping the first 300 test rows.
//
//	go run kde/testdata/mksplit.go    # from the repository root
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kernelad/anomaly/dataset"
	"github.com/sbinet/npyio/npy"
	"gonum.org/v1/gonum/mat"
)

func main() {
	for _, name := range []string{"6_cardio", "38_thyroid"} {
		ds, err := dataset.Load(filepath.Join("..", "shared", "data", "adbench", name+".npz"), dataset.Options{})
		check(err)
		tr, te, err := dataset.SplitADBench(ds, 1)
		check(err)
		n, _ := te.X.Dims()
		test := mat.DenseCopyOf(te.X).Slice(0, min(300, n), 0, te.Cols()).(*mat.Dense)
		write(filepath.Join("kde", "testdata", name+"_train.npy"), mat.DenseCopyOf(tr.X))
		write(filepath.Join("kde", "testdata", name+"_test.npy"), mat.DenseCopyOf(test))
	}
}

func write(path string, m *mat.Dense) {
	f, err := os.Create(path)
	check(err)
	check(npy.Write(f, m))
	check(f.Close())
	r, c := m.Dims()
	fmt.Printf("%s: %d × %d\n", path, r, c)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
