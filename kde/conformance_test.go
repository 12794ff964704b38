package kde

import (
	"strconv"
	"testing"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/detectortest"
)

// TestConformance runs the shared detector suite on the exact and the tree
// scorer (Gaussian kernel, Scott bandwidth). KDE has no random choice. The
// AUC floors are the AUC-ROC of a run of this test (go test -race -run
// Conformance -v ./kde, 2026-11-22: exact 0.9711, tree 0.9711 on the
// suite's 200×4 Gaussian mixture) less about 0.05. The cancelled fit scores
// 100,000 × 8 training rows against themselves (10¹⁰ kernel terms) to set
// the threshold.
func TestConformance(t *testing.T) {
	cfg := func(d detector.Detector) any { return d.(*KDE).cfg }
	cancel := detectortest.Cancel{Rows: 100000, Cols: 8}
	for _, tc := range []struct {
		name   string
		params map[string]string
		floor  float64
		known  map[string]string
	}{
		{"exact", map[string]string{"algorithm": "exact"}, 0.92, nil},
		{"tree", map[string]string{"algorithm": "tree", "rtol": "1e-8"}, 0.92, nil},
		// Variants through the same checks (shapes, threshold share, save
		// and load, ...): other kernels and bandwidth rules. Their AUC
		// floor is chance, and their cancellation is the loops above.
		{"epanechnikov-silverman", map[string]string{"kernel": "epanechnikov", "bandwidth": "silverman"}, 0.5, nil},
		{"cosine-tree", map[string]string{"kernel": "cosine", "bandwidth": "3", "algorithm": "tree", "rtol": "1e-3", "leaf_size": "8"}, 0.5, nil},
		{"cv", map[string]string{"bandwidth": "cv", "contamination": "0.2"}, 0.5, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := detectortest.Options{AUCFloor: tc.floor, Config: cfg, Cancel: cancel, Known: tc.known}
			if tc.floor == 0.5 {
				opts.Skip = map[string]string{"Cancel": "the exact and tree variants cover the scoring loops"}
			}
			if c, ok := tc.params["contamination"]; ok {
				opts.Contamination, _ = strconv.ParseFloat(c, 64)
			}
			detectortest.Run(t, "kde", tc.params, opts)
		})
	}
}
