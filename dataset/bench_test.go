package dataset

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/kernelad/anomaly/internal/testmat"
)

// BenchmarkRead parses in-memory files of n rows × 10 features in each
// format (Gaussian values; the LIBSVM file is dense, all 10 pairs a line).
func BenchmarkRead(b *testing.B) {
	const d = 10
	for _, n := range []int{1000, 10000, 100000} {
		ds := GaussianMixture(n, d, 0.05, rand.NewPCG(1, 1))
		var csv bytes.Buffer
		for j := 0; j < d; j++ {
			fmt.Fprintf(&csv, "f%d,", j)
		}
		csv.WriteString("label\n")
		fortran := make([]float64, 0, n*d)
		for j := 0; j < d; j++ {
			for i := 0; i < n; i++ {
				fortran = append(fortran, ds.X.At(i, j))
			}
		}
		y := make([]float64, n)
		for i := 0; i < n; i++ {
			for j := 0; j < d; j++ {
				csv.WriteString(strconv.FormatFloat(ds.X.At(i, j), 'g', -1, 64))
				csv.WriteByte(',')
			}
			csv.WriteString(strconv.Itoa(ds.Y[i]))
			csv.WriteByte('\n')
			y[i] = float64(ds.Y[i])
		}
		var svm bytes.Buffer
		WriteLIBSVM(&svm, ds.X, ds.Y)
		npz := npzBytes(map[string][]byte{
			"X.npy": npyBytes("<f8", true, []int{n, d}, fortran),
			"y.npy": npyBytes("<i8", false, []int{n}, y),
		}, "X.npy", "y.npy")
		for _, f := range []struct {
			name string
			data []byte
		}{{"f.csv", csv.Bytes()}, {"f.npz", npz}, {"f.svm", svm.Bytes()}} {
			b.Run(fmt.Sprintf("%s/n=%d", f.name[2:], n), func(b *testing.B) {
				b.SetBytes(int64(len(f.data)))
				for b.Loop() {
					if _, err := Read(bytes.NewReader(f.data), int64(len(f.data)), f.name, Options{}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			})
		}
	}
}

// benchFiles are the files of BenchmarkLoad, written once per test binary
// from fixed seeds (see writeBenchFiles). With DATASET_BENCH_DIR set they go
// to that folder and are kept, so that testdata/numpy_readers.py can time
// NumPy on the very same files; otherwise to a temporary folder removed by
// TestMain.
var benchFiles struct {
	once sync.Once
	dir  string
	tmp  bool
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchFiles.tmp {
		os.RemoveAll(benchFiles.dir)
	}
	os.Exit(code)
}

// benchDir returns the folder holding the BenchmarkLoad files.
func benchDir(b *testing.B) string {
	b.Helper()
	benchFiles.once.Do(func() {
		dir := os.Getenv("DATASET_BENCH_DIR")
		if dir == "" {
			dir, benchFiles.err = os.MkdirTemp("", "dataset-bench-")
			if benchFiles.err != nil {
				return
			}
			benchFiles.tmp = true
		} else if benchFiles.err = os.MkdirAll(dir, 0o755); benchFiles.err != nil {
			return
		}
		benchFiles.dir = dir
		benchFiles.err = writeBenchFiles(dir)
	})
	if benchFiles.err != nil {
		b.Fatal(benchFiles.err)
	}
	return benchFiles.dir
}

// BenchmarkLoad reads files from disk (page cache warm) with Load:
//
//	npz-stored    6,400 × 960 float64 (C order) + y int64, np.savez layout (zip Store), 49 MB
//	npz-deflate   the same arrays deflated (np.savez_compressed layout)
//	npy-fortran   10,000 × 100 int16 in Fortran order (the ADBench layout), 2 MB
//	csv           6,400 rows × 100 Gaussian features + a 0/1 label, shortest 'g' form, 13 MB
//	libsvm        the same rows as LIBSVM text (dense: 100 pairs a line), 14 MB
//
// The MB/s column is file bytes per second. The "reuse" cases read into
// one Options.Buffer, as a loop over files of one size can.
func BenchmarkLoad(b *testing.B) {
	dir := benchDir(b)
	for _, f := range []struct {
		name, file string
		reuse      int // Buffer capacity, 0: none
	}{
		{"npz-stored/6400x960-f8", "stored.npz", 0},
		{"npz-stored-reuse/6400x960-f8", "stored.npz", 6400 * 960},
		{"npz-deflate/6400x960-f8", "deflate.npz", 0},
		{"npy-fortran/10000x100-i2", "fortran_i2.npy", 0},
		{"npy-fortran-reuse/10000x100-i2", "fortran_i2.npy", 10000 * 100},
		{"csv/6400x100", "data.csv", 0},
		{"libsvm/6400x100", "data.svm", 0},
	} {
		path := filepath.Join(dir, f.file)
		st, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(f.name, func(b *testing.B) {
			var opt Options
			if f.reuse > 0 {
				opt.Buffer = make([]float64, f.reuse)
			}
			b.SetBytes(st.Size())
			for b.Loop() {
				if _, err := Load(path, opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// writeBenchFiles writes the BenchmarkLoad files into dir.
func writeBenchFiles(dir string) error {
	// 6,400 × 960 N(0, 1) float64, labels 1 with probability 0.05.
	const n, d = 6400, 960
	rng := rand.New(rand.NewPCG(13, 1))
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	y := make([]int64, n)
	for i := range y {
		if rng.Float64() < 0.05 {
			y[i] = 1
		}
	}
	xb := benchNPY("<f8", false, []int{n, d}, len(x)*8, func(buf []byte) []byte {
		for _, v := range x {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
		}
		return buf
	})
	yb := benchNPY("<i8", false, []int{n}, n*8, func(buf []byte) []byte {
		for _, v := range y {
			buf = binary.LittleEndian.AppendUint64(buf, uint64(v))
		}
		return buf
	})
	for _, z := range []struct {
		file   string
		method uint16
	}{{"stored.npz", zip.Store}, {"deflate.npz", zip.Deflate}} {
		if err := benchNPZ(filepath.Join(dir, z.file), z.method, xb, yb); err != nil {
			return err
		}
	}

	// 10,000 × 100 uniform int16 written column by column.
	const ni, di = 10000, 100
	rng = rand.New(rand.NewPCG(13, 2))
	ib := benchNPY("<i2", true, []int{ni, di}, ni*di*2, func(buf []byte) []byte {
		for range ni * di {
			buf = binary.LittleEndian.AppendUint16(buf, uint16(rng.IntN(1<<16)))
		}
		return buf
	})
	if err := os.WriteFile(filepath.Join(dir, "fortran_i2.npy"), ib, 0o644); err != nil {
		return err
	}

	// CSV and LIBSVM: 6,400 rows × 100 N(0, 1) features and a 0/1 label.
	const nc, dc = 6400, 100
	rng = rand.New(rand.NewPCG(13, 3))
	var csv, svm bytes.Buffer
	for j := range dc {
		fmt.Fprintf(&csv, "f%d,", j+1)
	}
	csv.WriteString("label\n")
	var line []byte
	for range nc {
		lab := 0
		if rng.Float64() < 0.05 {
			lab = 1
		}
		line = strconv.AppendInt(line[:0], int64(lab), 10)
		for j := range dc {
			v := rng.NormFloat64()
			csv.Write(strconv.AppendFloat(nil, v, 'g', -1, 64))
			csv.WriteByte(',')
			line = append(line, ' ')
			line = strconv.AppendInt(line, int64(j+1), 10)
			line = append(line, ':')
			line = strconv.AppendFloat(line, v, 'g', -1, 64)
		}
		csv.WriteString(strconv.Itoa(lab))
		csv.WriteByte('\n')
		svm.Write(line)
		svm.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, "data.csv"), csv.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "data.svm"), svm.Bytes(), 0o644)
}

// benchNPY returns an .npy 1.0 file: the header for descr, order and shape
// (npyPrefix), then the data bytes that fill appends (size of them).
func benchNPY(descr string, fortran bool, shape []int, size int, fill func([]byte) []byte) []byte {
	hdr := testmat.NPY(descr, fortran, shape, nil)
	return fill(append(make([]byte, 0, len(hdr)+size), hdr...))
}

// benchNPZ writes X.npy and y.npy into a zip file with the given method.
func benchNPZ(path string, method uint16, x, y []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	zw := zip.NewWriter(bw)
	for _, m := range []struct {
		name string
		data []byte
	}{{"X.npy", x}, {"y.npy", y}} {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: m.name, Method: method})
		if err != nil {
			f.Close()
			return err
		}
		if _, err := w.Write(m.data); err != nil {
			f.Close()
			return err
		}
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
