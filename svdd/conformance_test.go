package svdd

import (
	"testing"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/detectortest"
)

// TestConformance runs the shared detector suite with the default RBF kernel
// (gamma=scale_scott) and nu = 0.1. The method is deterministic (no seed). The AUC
// floor is the AUC-ROC of a run of this test (go test -race -run
// Conformance -v ./svdd, 2026-11-22: 0.9414 on the suite's 200×4 Gaussian
// mixture) less about 0.05. The cancelled fit (Cancel, Latency) is the SMO
// solve on 20,000 × 8 rows at nu = 0.5, 4.5–5.7 s of CPU time (2026-11-29,
// ocsvm and svdd), and Latency's Score is of 60,000 such rows against
// about 10,000 support vectors, about 2.7 s of CPU; the refit of
// Transaction and Progress is 6,000 rows of the suite's 4 columns at nu =
// 0.5, about 0.2 s of CPU (the suite's rows are scored while it runs, so
// it keeps their column count). smo checks ctx after about a millisecond
// of work, and the expansion between blocks of rows of a millisecond or
// two, so the latency does not grow with n.
func TestConformance(t *testing.T) {
	detectortest.Run(t, "svdd", map[string]string{"nu": "0.1"}, detectortest.Options{
		AUCFloor: 0.89,
		Config:   func(d detector.Detector) any { return d.(*SVDD).cfg },
		Cancel:   detectortest.Cancel{Rows: 20000, Cols: 8, Params: map[string]string{"nu": "0.5"}, ScoreRows: 60000},
		Refit:    detectortest.Cancel{Rows: 6000, Params: map[string]string{"nu": "0.5"}},
	})
}
