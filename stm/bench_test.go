package stm

import (
	"context"
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/tensor"
)

// BenchmarkScaling is must-show 4: fit plus scoring of the training rows,
// factorisation included, on synthetic 12×10×8 rank-2 tensors (N(0,1)
// factors, 1% noise), over n. One op = Fit + Score. Reports wall time and
// the process CPU time per op (cpu-s/op).
func BenchmarkScaling(b *testing.B) {
	shape := []int{12, 10, 8}
	for _, n := range []int{400, 1600, 6400} {
		rng := rand.New(rand.NewPCG(uint64(n), 9))
		X := mat.NewDense(n, 960, nil)
		for i := range n {
			t := tensor.Zeros(shape...)
			var fs [3][2][]float64
			for m, s := range shape {
				for r := range 2 {
					fs[m][r] = make([]float64, s)
					for k := range s {
						fs[m][r][k] = rng.NormFloat64()
					}
				}
			}
			d := t.Data()
			for a := range 12 {
				for bb := range 10 {
					for c := range 8 {
						v := 0.0
						for r := range 2 {
							v += fs[0][r][a] * fs[1][r][bb] * fs[2][r][c]
						}
						d[(a*10+bb)*8+c] = v + 0.01*rng.NormFloat64()
					}
				}
			}
			X.SetRow(i, d)
		}
		for _, method := range []string{"r1stm", "1stm"} {
			b.Run(fmt.Sprintf("%s/n=%d", method, n), func(b *testing.B) {
				c0 := cpuSeconds()
				defer func() { b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "cpu-s/op") }()
				for i := 0; i < b.N; i++ {
					c := Common{Shape: shape, Rank: 2}
					var err error
					if method == "r1stm" {
						var d *R1STM
						d, _ = NewR1STM(R1STMConfig{Common: c})
						if err = d.Fit(context.Background(), X); err == nil {
							_, err = d.Score(nil, X)
						}
					} else {
						var d *OneSTM
						d, _ = NewOneSTM(OneSTMConfig{Common: c})
						if err = d.Fit(context.Background(), X); err == nil {
							_, err = d.Score(nil, X)
						}
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// cpuSeconds returns the user + system CPU time of the process: on a shared
// machine it is a steadier measure of the work than wall time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
