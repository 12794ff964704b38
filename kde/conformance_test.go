package kde

import (
	"strconv"
	"testing"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/detectortest"
)

// TestConformance runs the shared detector suite on the exact and the tree
// scorer (Gaussian kernel, the default bandwidth) and on variants. KDE
// has no random choice. The AUC floors are the AUC-ROC of a run of this
// test (go test -race -run Conformance -v ./kde, 2026-11-22: exact
// 0.9711, tree 0.9711 on the suite's 200×4 Gaussian mixture) less about
// 0.05.
//
// Refit sizes the Transaction check's refits at 100–300 ms without -race
// (CPU time of one fit, 2 cores, 2026-11-29: exact 7,500×4 about 0.3 s,
// tree 3,000×4 0.3 s, epanechnikov 6,000×4 0.3 s, cosine-tree 2,000×4
// 0.3 s, cv 1,200×4 0.4 s). Cancel is a fit of a few seconds for the
// Cancel and Latency checks: the exact scorer scores all 30,000 × 8
// training rows against each other (9·10⁸ kernel terms, about 5 s of
// CPU), the tree 10,000 of 20,000 (6.5 s at rtol 10⁻⁸), and cv evaluates
// 1,000 held-out rows of 20,000 at 21 bandwidths (4·10⁸ kernel terms)
// before it scores; Latency's Score scores 10,000 or 30,000 rows against
// the training rows. The exact scorer's problem has few rows and scores
// them all, rather than 10,000 of 100,000: the passes over the data
// before the scoring (the scale stage, the range and width checks) are
// not cancelled midway, and under -race those of 100,000 × 8 rows took
// 0.4–0.7 s.
func TestConformance(t *testing.T) {
	cfg := func(d detector.Detector) any { return d.(*KDE).cfg }
	for _, tc := range []struct {
		name   string
		params map[string]string
		floor  float64
		refit  detectortest.Cancel
		cancel detectortest.Cancel
	}{
		{"exact", map[string]string{"algorithm": "exact"}, 0.92, detectortest.Cancel{Rows: 7500},
			detectortest.Cancel{Rows: 30000, Cols: 8, ScoreRows: 30000, Params: map[string]string{"threshold_rows": "-1"}}},
		{"tree", map[string]string{"algorithm": "tree", "rtol": "1e-8"}, 0.92, detectortest.Cancel{Rows: 3000},
			detectortest.Cancel{Rows: 20000, Cols: 8, ScoreRows: 10000}},
		// Variants through the same checks (shapes, threshold share, save
		// and load, ...): other kernels and bandwidth rules. Their AUC
		// floor is chance.
		{"epanechnikov-silverman", map[string]string{"kernel": "epanechnikov", "bandwidth": "silverman"}, 0.5, detectortest.Cancel{Rows: 6000}, detectortest.Cancel{}},
		{"cosine-tree", map[string]string{"kernel": "cosine", "bandwidth": "3", "algorithm": "tree", "rtol": "1e-3", "leaf_size": "8"}, 0.5, detectortest.Cancel{Rows: 2000}, detectortest.Cancel{}},
		{"cv", map[string]string{"bandwidth": "cv", "contamination": "0.2"}, 0.5, detectortest.Cancel{Rows: 1200},
			detectortest.Cancel{Rows: 20000, Cols: 8, ScoreRows: 10000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := detectortest.Options{AUCFloor: tc.floor, Config: cfg, Cancel: tc.cancel, Refit: tc.refit}
			if tc.name == "exact" {
				// A size at which the estimate's parts all count: the
				// rows (1.6 MB), each worker's block of distances (5 MB)
				// and the save (Memory's default 2,000 × 4 is under its
				// 4 MB floor). Measured 12.7 MB, estimated 14.0 MB.
				opts.Memory = detectortest.Memory{Rows: 10000, Cols: 20, Params: map[string]string{"threshold_rows": "500"}}
			}
			if tc.cancel.Rows == 0 {
				why := "the exact, tree and cv variants cover the scoring, tree and cross-validation loops"
				opts.Skip = map[string]string{"Cancel": why, "Latency": why}
			}
			if c, ok := tc.params["contamination"]; ok {
				opts.Contamination, _ = strconv.ParseFloat(c, 64)
			}
			detectortest.Run(t, "kde", tc.params, opts)
		})
	}
}
