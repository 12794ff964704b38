package svdd

import (
	"testing"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/detectortest"
)

// TestConformance runs the shared detector suite with the default RBF kernel
// (gamma=scale) and nu = 0.1. The method is deterministic (no seed). The AUC
// floor is the AUC-ROC of a run of this test (go test -race -run
// Conformance -v ./svdd, 2026-11-22: 0.9414 on the suite's 200×4 Gaussian
// mixture) less about 0.05. The cancelled fit is the SMO solve on 10,000 × 8
// rows with nu = 0.5, several seconds of work. smo checks ctx after every
// 65,536 kernel entries computed or active variables scanned, so the
// latency does not grow with n (10–90 ms under -race on a loaded machine).
func TestConformance(t *testing.T) {
	detectortest.Run(t, "svdd", map[string]string{"nu": "0.1"}, detectortest.Options{
		AUCFloor: 0.89,
		Config:   func(d detector.Detector) any { return d.(*SVDD).cfg },
		Cancel:   detectortest.Cancel{Rows: 10000, Cols: 8, Params: map[string]string{"nu": "0.5"}},
	})
}
