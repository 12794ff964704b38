package ocsvm

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/eval"
	"github.com/kernelad/anomaly/internal/shareddata"
	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/scale"
)

// TestFullShuttleMemory is issue 3, item 6: a fit on all 49,097 rows of
// shuttle (min-max scaled; the whole data set, no subsample) must keep the
// kernel values it holds under the cache budget (cache_mb, default 200 MB)
// — the full Q would take 49,097² × 4 bytes = 9.6 GB. Checked two ways: the
// solver's own high-water mark of cached bytes (Stats.CachePeakBytes ≤
// CacheBudgetBytes), and the Go heap in use sampled every 1,000 iterations
// through the progress callback, which must stay within the budget plus
// the data and solver vectors (and GC slack). Run with ANOMALY_LONG=1; it
// takes about a minute on two cores. Under /usr/bin/time -v the process's
// maximum resident set size gives a third, external check.
func TestFullShuttleMemory(t *testing.T) {
	testmat.SkipUnless(t, "ANOMALY_LONG", "for the full-shuttle memory check")
	ds := shareddata.ADBench(t, "32_shuttle")
	var sc scale.MinMax
	if err := sc.Fit(ds.X); err != nil {
		t.Fatal(err)
	}
	Xs, _, err := scale.Scale(&sc, ds.X, ds.X)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := Xs.Dims()
	var peakHeap uint64
	var ms runtime.MemStats
	sample := func() {
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse > peakHeap {
			peakHeap = ms.HeapInuse
		}
	}
	m, err := New(Config{Nu: 0.1, Common: method.Common{Progress: func(string, int, int) { sample() }}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := m.Fit(context.Background(), Xs); err != nil {
		t.Fatal(err)
	}
	sample()
	st := m.Stats()
	s, _ := m.Score(nil, Xs)
	t.Logf("n = %d, %d iterations in %v; SV %d; AUC on the training rows %.4f", n, st.Iterations, time.Since(start).Round(time.Millisecond), st.SV, eval.AUCROC(s, ds.Y))
	t.Logf("kernel cache: peak %.1f MB of a %.1f MB budget; full Q would be %.1f MB; peak Go heap in use %.1f MB",
		float64(st.CachePeakBytes)/(1<<20), float64(st.CacheBudgetBytes)/(1<<20), float64(n)*float64(n)*4/(1<<20), float64(peakHeap)/(1<<20))
	if st.CachePeakBytes > st.CacheBudgetBytes {
		t.Errorf("cache peak %d bytes above the budget %d", st.CachePeakBytes, st.CacheBudgetBytes)
	}
	// Budget + data copies + O(n) vectors, with GC slack: well under 2× budget.
	if lim := uint64(2 * st.CacheBudgetBytes); peakHeap > lim {
		t.Errorf("peak heap %d bytes above %d", peakHeap, lim)
	}
}
