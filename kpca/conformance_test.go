package kpca

import (
	"testing"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/detectortest"
)

// TestConformance runs the shared detector suite on the exact
// eigendecomposition and on the Nyström path (random landmarks: seeded).
// The AUC floors are the AUC-ROC of a run of this test (go test -race -run
// Conformance -v ./kpca, 2026-11-22: exact 0.9900, nystrom 0.9922 on the
// suite's 200×4 Gaussian mixture) less about 0.05. The cancelled fits are the
// exact method on 4,000 × 8 rows (a 4000 × 4000 centred Gram matrix and its
// eigendecomposition), the exact method on 2,000 × 8 rows with 600
// components (more than n/4: the dense route, cancelled inside its
// tridiagonal reduction or its eigenvectors) and Nyström with 500
// landmarks on 100,000 × 8 rows. The refits of Transaction and Progress
// take 100–300 ms on an idle machine (80–130 ms of CPU time per core
// measured on a loaded one): Lanczos on 3,000 × 8 rows, the dense route
// on 700 × 4 rows with 190 components (4q > n, and q below the suite's
// 200 rows, on which the refit's parameters are fitted first), the
// default rule on 4,000 × 4
// rows, and Nyström with 200 landmarks on 20,000 × 4 rows.
func TestConformance(t *testing.T) {
	cfg := func(d detector.Detector) any { return d.(*KPCA).cfg }
	for _, tc := range []struct {
		name   string
		params map[string]string
		random bool
		floor  float64
		cancel detectortest.Cancel
		refit  detectortest.Cancel
		memory detectortest.Memory
		known  map[string]string
	}{
		{"exact", map[string]string{"components": "5"}, false, 0.94,
			detectortest.Cancel{Rows: 4000, Cols: 8, Params: map[string]string{"components": "50"}},
			detectortest.Cancel{Rows: 3000, Cols: 8}, detectortest.Memory{}, nil},
		{"exact-dense", map[string]string{"components": "5"}, false, 0.94,
			detectortest.Cancel{Rows: 2000, Cols: 8, Params: map[string]string{"components": "600"}},
			detectortest.Cancel{Rows: 700, Cols: 4, Params: map[string]string{"components": "190"}},
			detectortest.Memory{Params: map[string]string{"components": "600"}}, nil},
		{"variance", map[string]string{"variance": "0.5"}, false, 0.94,
			detectortest.Cancel{Rows: 4000, Cols: 8}, detectortest.Cancel{Rows: 4000, Cols: 4}, detectortest.Memory{Cols: 200}, nil},
		{"nystrom", map[string]string{"components": "5", "method": "nystrom", "landmarks": "40"}, true, 0.94,
			detectortest.Cancel{Rows: 100000, Cols: 8, Params: map[string]string{"components": "50", "landmarks": "500"}},
			detectortest.Cancel{Rows: 20000, Cols: 4, Params: map[string]string{"landmarks": "200"}},
			detectortest.Memory{Rows: 20000, Params: map[string]string{"landmarks": "500"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			detectortest.Run(t, "kpca", tc.params, detectortest.Options{Random: tc.random, AUCFloor: tc.floor, Config: cfg,
				Cancel: tc.cancel, Refit: tc.refit, Memory: tc.memory, Known: tc.known})
		})
	}
}
