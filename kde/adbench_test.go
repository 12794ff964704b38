package kde

import (
	"os"
	"testing"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/shareddata"
	"github.com/kernelad/anomaly/scale"
)

// anchorScott is the median test AUC-ROC over seeds 1–3 of scikit-learn's
// KernelDensity(kernel='gaussian', bandwidth='scott') in
// ../shared/anchors/RESULTS.md (column kde_scott, "Median AUC-ROC").
var anchorScott = map[string]float64{
	"4_breastw": 0.996, "6_cardio": 0.954, "10_cover": 0.889, "16_http": 0.992, "18_Ionosphere": 0.837,
	"23_mammography": 0.868, "24_mnist": 0.866, "28_pendigits": 0.969, "29_Pima": 0.680, "30_satellite": 0.637,
	"31_satimage-2": 0.993, "32_shuttle": 0.986, "34_smtp": 0.144, "38_thyroid": 0.882, "40_vowels": 0.687,
}

// TestADBenchAUC (ANOMALY_LONG=1) runs the ADBench protocol
// (dataset.SplitADBench, seeds 1–3) on the 15 data sets and compares the
// median test AUC of the Gaussian KDE with Scott's bandwidth to
// scikit-learn's. Our split is drawn by our own generator, not by
// scikit-learn's train_test_split, so the rows differ; the medians must
// agree within 0.01 except on 34_smtp, whose test split holds a single
// anomaly (its AUC is that one row's rank), reported but not asserted.
func TestADBenchAUC(t *testing.T) {
	if os.Getenv("ANOMALY_LONG") != "1" {
		t.Skip("set ANOMALY_LONG=1 to run the 15 ADBench data sets (about a minute)")
	}
	shareddata.ADBenchAnchors(t, anchorScott, 0.01, []string{"34_smtp"}, func(uint64) detector.Detector {
		k, _ := New(Config{Rule: Scott, Common: detector.Common{Scale: scale.None}})
		return k
	})
}
