// Command loadfile reads one data file with dataset.Load, or through a
// dataset.File in chunks of rows, and prints its dimensions and the time
// the read took: the readers alone, in a fresh process (memory straight
// from the operating system, as a command line sees it), for peak-memory
// and one-shot timings such as
//
//	go build -o /tmp/loadfile ./dataset/testdata/loadfile
//	/usr/bin/time -v /tmp/loadfile FILE               # Load
//	/usr/bin/time -v /tmp/loadfile -scan 1092 FILE    # Open, Scan in chunks of 1,092 rows
//	/usr/bin/time -v /tmp/loadfile -scan 0 FILE       # Open, Scan in one chunk of every row
//
// With -repeat k it reads the file k times and prints the time of each
// read and the process's CPU time (user and system), which a busy machine
// disturbs less than the elapsed time.
// dataset/testdata/numpy_oneshot.py times NumPy the same way.
//
// (a testdata folder, so ./... does not build it).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"syscall"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/dataset"
)

func main() {
	scan := flag.Int("scan", -1, "read through Open and Scan in chunks of this many rows (0: every row in one chunk); -1: Load")
	repeat := flag.Int("repeat", 1, "reads")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: loadfile [-scan rows] [-repeat k] FILE")
		os.Exit(2)
	}
	path := flag.Arg(0)
	for range *repeat {
		t0 := time.Now()
		r, c, shape, err := read(path, *scan)
		elapsed := time.Since(t0)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		how := "load"
		if *scan >= 0 {
			how = fmt.Sprintf("scan %d", *scan)
		}
		fmt.Printf("%d %d %v %s %.2f ms\n", r, c, shape, how, elapsed.Seconds()*1e3)
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		fmt.Printf("cpu %.2f ms a read (user %.2f, system %.2f ms in all)\n", cpu.Seconds()*1e3/float64(*repeat), time.Duration(ru.Utime.Nano()).Seconds()*1e3, time.Duration(ru.Stime.Nano()).Seconds()*1e3)
	}
}

func read(path string, scan int) (r, c int, shape []int, err error) {
	if scan < 0 {
		ds, err := dataset.Load(path, dataset.Options{})
		if err != nil {
			return 0, 0, nil, err
		}
		r, c = ds.X.Dims()
		return r, c, ds.Shape, nil
	}
	f, err := dataset.Open(path, dataset.Options{})
	if err != nil {
		return 0, 0, nil, err
	}
	defer f.Close()
	max := scan
	if max == 0 {
		max = 1 << 62
	}
	err = f.Scan(context.Background(), max, func(lo int, X mat.Matrix) error {
		n, _ := X.Dims()
		r = lo + n
		return nil
	})
	_, c = f.Dims()
	return r, c, f.Shape(), err
}
