package expose

import (
	"testing"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/detectortest"
)

// TestConformance runs the shared detector suite on both solvers. The AUC
// floors are the AUC-ROC of a run of this test (go test -race -run
// Conformance -v ./expose, 2026-11-22: batch 0.9358, sgd with T = 100
// 0.9117, on the suite's 200×4 Gaussian mixture) less about 0.05. The
// cancelled fit (and the Latency check's) is 20,000 × 16 rows with
// D = 16384 and γ given: a batch fit of about 3 s here (2 cores), and for
// the SGD solver T = 10,000 steps, about 4 s. The refit of the
// Transaction check is 6,000 × 4 rows with D = 4096 (SGD: T = 10,000),
// 200–300 ms.
func TestConformance(t *testing.T) {
	cfg := func(d detector.Detector) any { return d.(*EXPoSE).cfg }
	for _, tc := range []struct {
		solver string
		floor  float64
		T      string // the Cancel fit's iterations
	}{
		{Batch, 0.88, ""},
		{SGD, 0.86, "10000"},
	} {
		t.Run(tc.solver, func(t *testing.T) {
			cancel := map[string]string{"features": "16384", "gamma": "0.05"}
			if tc.T != "" {
				cancel["iterations"] = tc.T
			}
			detectortest.Run(t, "expose", map[string]string{"solver": tc.solver, "features": "256", "iterations": "100"},
				detectortest.Options{Random: true, AUCFloor: tc.floor, Config: cfg,
					Cancel: detectortest.Cancel{Rows: 20000, Cols: 16, Params: cancel},
					Refit:  detectortest.Cancel{Rows: 6000, Params: map[string]string{"features": "4096", "iterations": "10000"}}})
		})
	}
}
