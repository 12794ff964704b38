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
// solve on 20,000 × 8 rows with nu = 0.5, about 5 s of work (4.8 s for
// ocsvm on this machine, 2026-11-29), and its Score of those rows against
// about 10,000 support vectors about 2 s; the refit of Transaction and
// Progress is 4,000 × 8 rows at nu = 0.5, about 170 ms. smo checks ctx
// after about a millisecond of work, and the expansion between blocks of
// rows of a millisecond or two, so the latency does not grow with n.
func TestConformance(t *testing.T) {
	detectortest.Run(t, "svdd", map[string]string{"nu": "0.1"}, detectortest.Options{
		AUCFloor: 0.89,
		Config:   func(d detector.Detector) any { return d.(*SVDD).cfg },
		Cancel:   detectortest.Cancel{Rows: 20000, Cols: 8, Params: map[string]string{"nu": "0.5"}},
		Refit:    detectortest.Cancel{Rows: 4000, Cols: 8, Params: map[string]string{"nu": "0.5"}},
	})
}
