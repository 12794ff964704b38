package dataset

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// scanChunk is method.ChunkRows (which this package cannot import): the
// chunk a fit or a score reads a File with, about 8 MiB of values.
func scanChunk(cols int) int { return max(256, (8<<20)/(8*max(cols, 1))) }

// scanFiles are the files of BenchmarkScan, written once per test binary
// into the BenchmarkLoad folder (see benchDir).
var scanFiles struct {
	once sync.Once
	err  error
}

// scanBenchFiles lists BenchmarkScan's files: name, rows, columns.
var scanBenchFiles = []struct {
	name string
	n, d int
}{
	{"c-100000x10-f8.npy", 100000, 10},
	{"c-1000000x10-f8.npy", 1000000, 10},
	{"f-100000x10-f8.npy", 100000, 10},
	{"f-1000000x10-f8.npy", 1000000, 10},
	{"c-6400x960-f8.npy", 6400, 960},
	{"f-6400x960-f8.npy", 6400, 960},
	{"f-10000x100-i2.npy", 10000, 100},
	{"stored.npz", 6400, 960},
	{"csv-10000x10.csv", 10000, 10},
	{"csv-100000x10.csv", 100000, 10},
	{"data.csv", 6400, 100},
}

// writeScanFiles writes the files of scanBenchFiles not written by
// writeBenchFiles: N(0, 1) values from fixed seeds.
func writeScanFiles(dir string) error {
	for k, f := range scanBenchFiles {
		path := filepath.Join(dir, f.name)
		if _, err := os.Stat(path); err == nil {
			continue
		}
		rng := rand.New(rand.NewPCG(17, uint64(k)))
		var b []byte
		switch {
		case f.name[0] == 'c' && filepath.Ext(f.name) == ".npy", f.name[0] == 'f' && filepath.Ext(f.name) == ".npy":
			descr := "<f8"
			if f.name[len(f.name)-6:] == "i2.npy" {
				descr = "<i2"
			}
			size := dtypeSize(descr)
			b = benchNPY(descr, f.name[0] == 'f', []int{f.n, f.d}, f.n*f.d*size, func(buf []byte) []byte {
				for range f.n * f.d {
					if size == 2 {
						buf = binary.LittleEndian.AppendUint16(buf, uint16(rng.IntN(1<<16)))
					} else {
						buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(rng.NormFloat64()))
					}
				}
				return buf
			})
		case filepath.Ext(f.name) == ".csv":
			var w bytes.Buffer
			for j := range f.d {
				fmt.Fprintf(&w, "f%d,", j+1)
			}
			w.WriteString("label\n")
			for range f.n {
				for range f.d {
					w.Write(strconv.AppendFloat(nil, rng.NormFloat64(), 'g', -1, 64))
					w.WriteByte(',')
				}
				w.WriteString(strconv.Itoa(rng.IntN(2)))
				w.WriteByte('\n')
			}
			b = w.Bytes()
		default:
			continue
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkScan reads files from disk (page cache warm) three ways:
// Load (the whole array at once), Open and a Scan in chunks of
// scanChunk(cols) rows (what fit and score read with: memory holds one
// chunk), and Open and a Scan in one chunk of every row (.npy: the
// whole array through a File). The files (see scanBenchFiles): .npy of
// N(0, 1) float64 in C order (c-) and Fortran order (f-), 100,000 and
// 1,000,000 rows of 10 and 6,400 rows of 960, the ADBench layout
// (Fortran int16, 10,000 × 100), the 6,400 × 960 stored .npz of
// BenchmarkLoad, CSV of 10,000 and 100,000 rows of 10 and BenchmarkLoad's
// 6,400 × 100. MB/s is file bytes a second; rows/s, rows.
func BenchmarkScan(b *testing.B) {
	dir := benchDir(b)
	scanFiles.once.Do(func() { scanFiles.err = writeScanFiles(dir) })
	if scanFiles.err != nil {
		b.Fatal(scanFiles.err)
	}
	for _, f := range scanBenchFiles {
		path := filepath.Join(dir, f.name)
		st, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		run := func(how string, read func() error) {
			b.Run(f.name+"/"+how, func(b *testing.B) {
				b.SetBytes(st.Size())
				for b.Loop() {
					if err := read(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(f.n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			})
		}
		scan := func(max int) func() error {
			return func() error {
				file, err := Open(path, Options{})
				if err != nil {
					return err
				}
				defer file.Close()
				rows := 0
				err = file.Scan(context.Background(), max, func(lo int, X mat.Matrix) error {
					r, _ := X.Dims()
					rows += r
					return nil
				})
				if err == nil && rows != f.n {
					err = fmt.Errorf("%d rows, want %d", rows, f.n)
				}
				return err
			}
		}
		run("load", func() error { _, err := Load(path, Options{}); return err })
		run("scan", scan(scanChunk(f.d)))
		if filepath.Ext(f.name) != ".csv" {
			run("scan-whole", scan(f.n))
		}
	}
}

// BenchmarkReadRows draws rows by index from .npy files of BenchmarkScan:
// a sample of 20,000 of 1,000,000 rows of 10 (the sample a --sample fit
// draws), in C and Fortran order, and 1,000 of 6,400 rows of 960.
func BenchmarkReadRows(b *testing.B) {
	dir := benchDir(b)
	scanFiles.once.Do(func() { scanFiles.err = writeScanFiles(dir) })
	if scanFiles.err != nil {
		b.Fatal(scanFiles.err)
	}
	for _, c := range []struct {
		file string
		n, k int
	}{
		{"c-1000000x10-f8.npy", 1000000, 20000},
		{"f-1000000x10-f8.npy", 1000000, 20000},
		{"c-6400x960-f8.npy", 6400, 1000},
		{"f-6400x960-f8.npy", 6400, 1000},
	} {
		b.Run(fmt.Sprintf("%s/%d", c.file, c.k), func(b *testing.B) {
			f, err := Open(filepath.Join(dir, c.file), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			rng := rand.New(rand.NewPCG(1, 1))
			idx := rand.New(rand.NewPCG(2, 2)).Perm(c.n)[:c.k]
			for b.Loop() {
				if _, err := f.(RowReader).ReadRows(context.Background(), idx); err != nil {
					b.Fatal(err)
				}
				rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
			}
			b.ReportMetric(float64(c.k)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
