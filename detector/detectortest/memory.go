package detectortest

import (
	"context"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/detector/method"
)

// Memory is the fit (and score) of the Memory check: Rows × Cols rows of
// dataset.GaussianMixture with Params merged over the suite's parameters.
// A zero value means 2,000 rows of the suite's column count.
type Memory struct {
	Rows, Cols int
	Params     map[string]string
}

// memorySlack is the fraction by which the heap a fit or score is seen to
// hold may pass the method's estimate (method.Memory) before the Memory
// check fails, and memoryFloor the bytes it may pass it by in any case
// (what the estimates leave out on purpose: O(n + d) vectors, the
// goroutines' stacks, the collector's lag at a small heap).
const (
	memorySlack = 1.25
	memoryFloor = 4 << 20
)

// memory fits the method on the Memory rows and scores them while
// sampling the bytes held in heap objects, with the collector run at a
// tenth of its usual lag so that the samples follow what is live, and
// requires the peak above the starting heap to stay within memorySlack of
// method.Memory's estimate (plus memoryFloor). The command line refuses
// runs whose estimate passes the memory budget on the strength of that
// estimate, so one that is far too low lets a run exhaust the machine.
func (s *suite) memory(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector distorts the memory figures; make test runs this check without -race")
	}
	mo := s.opts.Memory
	rows, cols := mo.Rows, mo.Cols
	if rows == 0 {
		rows = 2000
	}
	if cols == 0 {
		cols = s.opts.Features
	}
	X := mat.DenseCopyOf(dataset.GaussianMixture(rows, cols, s.c, rand.NewPCG(5, 5)).X)
	d, p := s.newDet(t, mo.Params)
	size := method.SizeOf(X)
	est, err := method.Memory(d, method.FitOp, size)
	if err != nil {
		t.Fatal(err)
	}
	peak := heapPeak(func() { err = d.Fit(context.Background(), X) })
	if err != nil {
		t.Fatalf("Fit(%v) on %d×%d: %v", p, rows, cols, err)
	}
	within(t, "Fit", rows, cols, est, peak)
	est, err = method.Memory(d, method.ScoreOp, size)
	if err != nil {
		t.Fatal(err)
	}
	var sc []float64
	peak = heapPeak(func() { sc, err = d.Score(nil, X) })
	if err != nil {
		t.Fatalf("Score: %v", err)
	}
	runtime.KeepAlive(sc)
	within(t, "Score", rows, cols, est, peak)
}

func within(t *testing.T, op string, rows, cols int, est, peak int64) {
	t.Helper()
	mb := func(b int64) float64 { return float64(b) / 1e6 }
	if lim := int64(memorySlack*float64(est)) + memoryFloor; peak > lim {
		t.Errorf("%s of %d×%d held %.1f MB at its peak (heap or resident set); the method estimates %.1f MB (allowed %.1f MB)", op, rows, cols, mb(peak), mb(est), mb(lim))
		return
	}
	t.Logf("%s of %d×%d: peak %.1f MB (heap or resident set), estimate %.1f MB", op, rows, cols, mb(peak), mb(est))
}

// heapPeak runs f and returns the most memory it was seen to hold: the
// larger of the growth of the bytes in Go heap objects and the growth of
// the process's resident set (which also counts buffers mapped outside the
// Go heap, as kernel PCA's matrix and the SMO cache are), sampled every
// 100 µs. Before f starts the heap is collected and its free pages
// returned to the operating system, so that what f allocates shows in the
// resident set, and during f the collector's target (GOGC) is 10, so that
// the heap samples follow what is live.
func heapPeak(f func()) int64 {
	debug.FreeOSMemory()
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	heap := func() int64 {
		metrics.Read(sample)
		return int64(sample[0].Value.Uint64())
	}
	h0, r0 := heap(), resident()
	var peak int64
	look := func() {
		peak = max(peak, heap()-h0)
		if r0 > 0 {
			peak = max(peak, resident()-r0)
		}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(100 * time.Microsecond)
		defer tick.Stop()
		for {
			look()
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	look()
	return peak
}

// resident returns the process's resident set in bytes from
// /proc/self/statm, or 0 where that cannot be read (then only the heap is
// sampled).
func resident() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}

// HeapPeak runs f and returns the most memory it was seen to hold, as the
// Memory check measures it: the larger growth of the bytes in Go heap
// objects and of the resident set, sampled every 100 µs with the
// collector's target at 10 while f runs. For tables of measured peaks
// beside a method's estimate outside the suite.
func HeapPeak(f func()) int64 { return heapPeak(f) }
