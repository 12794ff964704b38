// Command bignpy writes an .npy file of standard-normal float64 rows, a
// chunk at a time, for the large-file runs (make large): it never holds
// more than one chunk, so it makes files far larger than memory.
//
//	go run ./tools/bignpy -rows 100000000 -cols 10 -out n100m.npy
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
)

func main() {
	rows := flag.Int("rows", 2000000, "rows")
	cols := flag.Int("cols", 10, "columns")
	seed := flag.Uint64("seed", 1, "seed of the values")
	out := flag.String("out", "", "file to write")
	flag.Parse()
	if *out == "" || *rows < 1 || *cols < 1 {
		fmt.Fprintln(os.Stderr, "bignpy: give -out, and -rows and -cols ≥ 1")
		os.Exit(1)
	}
	if err := write(*out, *rows, *cols, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "bignpy:", err)
		os.Exit(1)
	}
}

func write(path string, rows, cols int, seed uint64) error {
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return err
	}
	defer os.Remove(path + ".tmp")
	w := bufio.NewWriterSize(f, 1<<20)
	h := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }", rows, cols)
	for (10+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	w.WriteString("\x93NUMPY\x01\x00")
	binary.Write(w, binary.LittleEndian, uint16(len(h)))
	w.WriteString(h)
	rng := rand.New(rand.NewPCG(seed, seed))
	var b [8]byte
	for range rows * cols {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(rng.NormFloat64()))
		w.Write(b[:])
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}
