package kpca

import (
	"os"
	"strings"
	"testing"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/shareddata"
	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/scale"
)

// TestADBenchAUC (ANOMALY_LONG=1) runs the ADBench protocol
// (dataset.SplitADBench, seeds 1–3) on the 15 data sets with the exact
// method and the anchors' settings (RBF, gamma = scale, 50 components) and
// compares the median test AUC with scikit-learn's KernelPCA reconstruction
// error, the kpca_recon column of ../shared/anchors/RESULTS.md ("Median
// AUC-ROC"). 16_http is reported but
// not asserted: its normal rows score at round-off level (~1e-11, see
// RESULTS.md), so the ranking is decided by rounding. ANOMALY_KPCA_SETS
// (comma-separated) restricts the data sets.
func TestADBenchAUC(t *testing.T) {
	testmat.SkipUnless(t, "ANOMALY_LONG", "to run the 15 ADBench data sets (several minutes)")
	all := shareddata.MedianAUCs(t, "kpca_recon")
	anchors := all
	if only := os.Getenv("ANOMALY_KPCA_SETS"); only != "" {
		anchors = map[string]float64{}
		for _, name := range strings.Split(only, ",") {
			a, ok := all[name]
			if !ok {
				t.Fatalf("ANOMALY_KPCA_SETS: no anchor for %q", name)
			}
			anchors[name] = a
		}
	}
	shareddata.ADBenchAnchors(t, anchors, 0.01, []string{"16_http"}, func(uint64) detector.Detector {
		p, _ := New(Config{Components: 50, Common: method.Common{Scale: scale.None}})
		return p
	})
}
