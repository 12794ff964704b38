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
// cancelled fit is a batch embedding of 50,000 × 16 rows with D = 16384
// (SGD: T = 10⁶), tens of seconds of work. gamma is given, and the rows are
// fewer than the features' work suggests: the passes that run before the
// method (the input check, the scale stage's fit and copy, the scale rule)
// take no ctx, and on 200,000 × 16 rows they alone took over a second under
// -race on the loaded machine. detector.Base checks ctx before and after
// the scale stage.
func TestConformance(t *testing.T) {
	cfg := func(d detector.Detector) any { return d.(*EXPoSE).cfg }
	cancel := detectortest.Cancel{Rows: 50000, Cols: 16, Params: map[string]string{"features": "16384", "iterations": "1000000", "gamma": "0.05"}}
	for _, tc := range []struct {
		solver string
		floor  float64
		skip   map[string]string
	}{
		{Batch, 0.88, nil},
		// With T < n the SGD threshold is the quantile of the scores of the
		// T rows drawn (by design: the fit stays O(T)), so the share of all
		// n training rows flagged is only close to c (17 of 200 at c = 0.1).
		{SGD, 0.86, map[string]string{"Contamination": "sgd sets the threshold on the T sampled rows, not on all n (17 of 200 flagged at c = 0.1)"}},
	} {
		t.Run(tc.solver, func(t *testing.T) {
			detectortest.Run(t, "expose", map[string]string{"solver": tc.solver, "features": "256", "iterations": "100"},
				detectortest.Options{Random: true, AUCFloor: tc.floor, Config: cfg, Cancel: cancel, Skip: tc.skip})
		})
	}
}
