//go:build ignore

// gen writes the shared example files of testdata/ from the data embedded
// in the module (dataset/embedded), so they can be rebuilt and checked:
//
//	go run ./testdata/gen.go
//
// See testdata/README.md for what each file holds and where it comes from.
package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/dataset/embedded"
)

func main() {
	dir := "testdata"
	ds, err := embedded.Load("4_breastw")
	if err != nil {
		log.Fatal(err)
	}
	X := ds.X.(*mat.Dense)
	n, d := X.Dims()
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

	var csv, arff bytes.Buffer
	for j := 0; j < d; j++ {
		fmt.Fprintf(&csv, "f%d,", j+1)
	}
	csv.WriteString("label\n")
	arff.WriteString("% Wisconsin breast cancer (ADBench 4_breastw): 683 rows, 9 features, class 1 = malignant (anomaly).\n")
	arff.WriteString("@relation breastw\n\n")
	for j := 0; j < d; j++ {
		fmt.Fprintf(&arff, "@attribute f%d real\n", j+1)
	}
	arff.WriteString("@attribute class {0,1}\n\n@data\n")
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			s := num(X.At(i, j))
			csv.WriteString(s + ",")
			arff.WriteString(s + ",")
		}
		fmt.Fprintf(&csv, "%d\n", ds.Y[i])
		fmt.Fprintf(&arff, "%d\n", ds.Y[i])
	}
	var lib bytes.Buffer
	if err := dataset.WriteLIBSVM(&lib, X, ds.Y); err != nil {
		log.Fatal(err)
	}
	npz, err := os.ReadFile("dataset/embedded/data/4_breastw.npz")
	if err != nil {
		log.Fatal(err)
	}

	// Tensor: the 20 Standing recordings of BasicMotions followed by 4
	// Running ones (the anomalies), 24 × 6 channels × 100 steps, float32.
	bm, err := embedded.Load("basicmotions")
	if err != nil {
		log.Fatal(err)
	}
	var rows []int
	for _, c := range []struct{ class, count int }{{0, 20}, {1, 4}} {
		for i, cl := range bm.Class {
			if cl == c.class && c.count > 0 {
				rows = append(rows, i)
				c.count--
			}
		}
	}
	_, w := bm.X.Dims()
	shape := append([]int{len(rows)}, bm.Shape...)
	var tens bytes.Buffer
	writeNPYHeader(&tens, "<f4", shape)
	for _, i := range rows {
		for j := 0; j < w; j++ {
			binary.Write(&tens, binary.LittleEndian, float32(bm.X.At(i, j)))
		}
	}
	for name, b := range map[string][]byte{
		"breastw.csv": csv.Bytes(), "breastw.arff": arff.Bytes(),
		"breastw.libsvm": lib.Bytes(), "breastw.npz": npz,
		"basicmotions_running.npy": tens.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

// writeNPYHeader writes a version 1.0 .npy header for a C-order array of
// the given dtype and shape, padded so the data starts on a 64-byte
// boundary as NumPy writes it.
func writeNPYHeader(w *bytes.Buffer, descr string, shape []int) {
	var dims bytes.Buffer
	for _, k := range shape {
		fmt.Fprintf(&dims, "%d, ", k)
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, bytes.TrimSuffix(dims.Bytes(), []byte(" ")))
	total := 10 + len(dict) + 1
	pad := (64 - total%64) % 64
	hdr := dict + string(bytes.Repeat([]byte(" "), pad)) + "\n"
	w.WriteString("\x93NUMPY\x01\x00")
	binary.Write(w, binary.LittleEndian, uint16(len(hdr)))
	w.WriteString(hdr)
}
