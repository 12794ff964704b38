package expose

import (
	"testing"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/detectortest"
)

// TestConformance runs the shared detector suite on both solvers, with the
// random map (batch, sgd) and the Nyström map at 100 landmarks
// (nystrom-batch, nystrom-sgd). The AUC floors are the AUC-ROC of a run of
// this test (go test -race -run Conformance -v ./expose, 2026-11-22: batch
// 0.9358, sgd with T = 100 0.9117, on the suite's 200×4 Gaussian mixture)
// less about 0.05; the Nyström map keeps them (a run: 0.9942 and 0.9967).
// The cancelled fit (and the Latency check's) is 20,000 × 16 rows with γ
// given: for the random map D = 16384, a batch fit of about 3 s here (2
// cores), and for the SGD solver T = 10,000 steps, about 4 s; for the
// Nyström map 2,000 landmarks, whose eigendecomposition alone takes some
// seconds (randfeat), then 20,000 × 2,000 kernel values of 16 columns or
// T = 10,000 steps of 2,000 features. The refit of the Transaction check
// is 6,000 × 4 rows with D = 4096 or 300 landmarks (SGD: T = 10,000),
// 70–300 ms. The subtests are named so that make test-memory runs their
// Memory checks.
func TestConformance(t *testing.T) {
	cfg := func(d detector.Detector) any { return d.(*EXPoSE).cfg }
	for _, tc := range []struct {
		name, solver string
		nystrom      bool
		floor        float64
		T            string // the Cancel fit's iterations
	}{
		{"batch", Batch, false, 0.88, ""},
		{"sgd", SGD, false, 0.86, "10000"},
		{"nystrom-batch", Batch, true, 0.88, ""},
		{"nystrom-sgd", SGD, true, 0.86, "10000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			params := map[string]string{"solver": tc.solver, "map": "rff", "features": "256", "iterations": "100"}
			cancel := map[string]string{"map": "rff", "features": "16384", "gamma": "0.05"}
			refit := map[string]string{"map": "rff", "features": "4096", "iterations": "10000"}
			if tc.nystrom {
				params = map[string]string{"solver": tc.solver, "map": Nystrom, "landmarks": "100", "iterations": "100"}
				cancel = map[string]string{"landmarks": "2000", "gamma": "0.05"}
				refit = map[string]string{"landmarks": "300", "iterations": "10000"}
			}
			if tc.T != "" {
				cancel["iterations"] = tc.T
			}
			detectortest.Run(t, "expose", params,
				detectortest.Options{Random: true, AUCFloor: tc.floor, Config: cfg,
					Cancel: detectortest.Cancel{Rows: 20000, Cols: 16, Params: cancel},
					Refit:  detectortest.Cancel{Rows: 6000, Params: refit}})
		})
	}
}
