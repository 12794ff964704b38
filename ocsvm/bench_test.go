package ocsvm

import (
	"context"
	"fmt"
	"syscall"
	"testing"

	"github.com/kernelad/anomaly/internal/shareddata"
)

// cpuSeconds returns the user + system CPU time of the process.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

// BenchmarkFitADBench fits on the LIBSVM parity splits (issue 3, item 5);
// testdata/bench_vs_libsvm.sh prints it next to svm-train's times on the
// same files.
func BenchmarkFitADBench(b *testing.B) {
	for _, name := range parityData {
		for _, nu := range parityNu {
			b.Run(fmt.Sprintf("%s/nu=%g", name, nu), func(b *testing.B) {
				train, _ := shareddata.ADBenchSplit(b, name, paritySeed)
				m, err := New(Config{Nu: nu})
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				c0 := cpuSeconds()
				for i := 0; i < b.N; i++ {
					if err := m.Fit(context.Background(), train.X); err != nil {
						b.Fatal(err)
					}
				}
				// CPU time of the process (both cores) per fit: on a shared
				// machine it is steadier than wall time.
				b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "cpu-s/op")
				b.ReportMetric(float64(m.Stats().Iterations), "iter")
			})
		}
	}
}

// BenchmarkFitSize is the size grid on Gaussian data (d = 10, ν = 0.5).
func BenchmarkFitSize(b *testing.B) {
	for _, n := range []int{500, 1000, 2000, 4000} {
		X := randX(n, 10, uint64(n))
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			m, _ := New(Config{})
			for i := 0; i < b.N; i++ {
				if err := m.Fit(context.Background(), X); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFitDefault is Fit at the defaults (ν = 0.9, γ = scale after the
// standard scale stage) on the 7,000 training rows of the seed-1 ADBench
// split of 10_cover: what `anomaly bench` runs for each split.
func BenchmarkFitDefault(b *testing.B) {
	train, _ := shareddata.ADBenchSplit(b, "10_cover", 1)
	b.Run("10_cover/n=7000", func(b *testing.B) {
		for b.Loop() {
			m, err := New(Config{})
			if err != nil {
				b.Fatal(err)
			}
			if err := m.Fit(context.Background(), train.X); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(m.Stats().Iterations), "iter")
		}
	})
}
