package dataset

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
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
