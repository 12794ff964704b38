package kpca

import (
	"os"
	"strings"
	"testing"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/shareddata"
	"github.com/kernelad/anomaly/scale"
)

// anchorKPCA is the median test AUC-ROC over seeds 1–3 of kernel PCA
// reconstruction error with scikit-learn's KernelPCA (RBF, gamma = scale,
// 50 components) in ../shared/anchors/RESULTS.md (column kpca_recon).
var anchorKPCA = map[string]float64{
	"4_breastw": 0.976, "6_cardio": 0.834, "10_cover": 0.935, "16_http": 0.001, "18_Ionosphere": 0.915,
	"23_mammography": 0.870, "24_mnist": 0.846, "28_pendigits": 0.803, "29_Pima": 0.665, "30_satellite": 0.672,
	"31_satimage-2": 0.963, "32_shuttle": 0.965, "34_smtp": 0.955, "38_thyroid": 0.948, "40_vowels": 0.945,
}

// TestADBenchAUC (ANOMALY_LONG=1) runs the ADBench protocol
// (dataset.SplitADBench, seeds 1–3) on the 15 data sets with the exact
// method and the anchors' settings (RBF, gamma = scale, 50 components) and
// compares the median test AUC with scikit-learn's. 16_http is reported but
// not asserted: its normal rows score at round-off level (~1e-11, see
// RESULTS.md), so the ranking is decided by rounding. ANOMALY_KPCA_SETS
// (comma-separated) restricts the data sets.
func TestADBenchAUC(t *testing.T) {
	if os.Getenv("ANOMALY_LONG") != "1" {
		t.Skip("set ANOMALY_LONG=1 to run the 15 ADBench data sets (several minutes)")
	}
	anchors := anchorKPCA
	if only := os.Getenv("ANOMALY_KPCA_SETS"); only != "" {
		anchors = map[string]float64{}
		for _, name := range strings.Split(only, ",") {
			a, ok := anchorKPCA[name]
			if !ok {
				t.Fatalf("ANOMALY_KPCA_SETS: no anchor for %q", name)
			}
			anchors[name] = a
		}
	}
	shareddata.ADBenchAnchors(t, anchors, 0.01, []string{"16_http"}, func(uint64) detector.Detector {
		p, _ := New(Config{Components: 50, Common: detector.Common{Scale: scale.None}})
		return p
	})
}
