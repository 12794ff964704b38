package iforest

import (
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/nprand"
	"github.com/kernelad/anomaly/internal/shareddata"
)

// anchorIForest is the median test AUC-ROC over seeds 1–3 of scikit-learn's
// IsolationForest at its defaults in ../shared/anchors/RESULTS.md (column
// iforest, "At a glance"); their mean is 0.8877.
var anchorIForest = map[string]float64{
	"4_breastw": 0.994, "6_cardio": 0.930, "10_cover": 0.892, "16_http": 0.999, "18_Ionosphere": 0.811,
	"23_mammography": 0.889, "24_mnist": 0.802, "28_pendigits": 0.951, "29_Pima": 0.679, "30_satellite": 0.701,
	"31_satimage-2": 0.991, "32_shuttle": 0.997, "34_smtp": 0.911, "38_thyroid": 0.982, "40_vowels": 0.787,
}

// TestADBenchAUC runs the ADBench protocol (seeds 1–3, the same splits as
// the anchors) with Isolation Forest at its defaults, seeded by the split
// seed as the anchors seed scikit-learn's random_state. The forests replay
// scikit-learn's draws (TestMatchesScikitLearn), so on the same rows they
// are the same forests; what can still differ is the last bit of a
// min-max scaled value, rounded to single precision, that lands on a
// threshold. Asserted: each set's median within 0.01 of scikit-learn's (the
// issue's bar; the anchors print three decimals) and the mean within 0.005.
func TestADBenchAUC(t *testing.T) {
	medians := shareddata.ADBenchAnchors(t, anchorIForest, 0.01, nil, func(seed uint64) detector.Detector {
		f, _ := New(Config{Src: nprand.NewSource(seed)})
		return f
	})
	var sum, ref float64
	for _, name := range slices.Sorted(maps.Keys(medians)) {
		med := medians[name]
		sum += med
		ref += anchorIForest[name]
	}
	mean, refMean := sum/float64(len(medians)), ref/float64(len(medians))
	t.Logf("mean AUC %.4f, scikit-learn %.4f", mean, refMean)
	if math.Abs(mean-refMean) > 0.005 {
		t.Errorf("mean AUC %.4f, scikit-learn %.4f", mean, refMean)
	}
}
