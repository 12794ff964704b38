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

// TestADBenchAUC runs the ADBench protocol (seeds 1–3, the same splits as
// the anchors) with Isolation Forest at its defaults, seeded by the split
// seed as the anchors seed scikit-learn's random_state, against the median
// test AUC-ROC of scikit-learn's IsolationForest at its defaults (the
// iforest column of ../shared/anchors/RESULTS.md, "Median AUC-ROC"; their
// mean is 0.8877). The forests replay
// scikit-learn's draws (TestMatchesScikitLearn), so on the same rows they
// are the same forests; what can still differ is the last bit of a
// min-max scaled value, rounded to single precision, that lands on a
// threshold. Asserted: each set's median within 0.01 of scikit-learn's (the
// issue's bar; the anchors print three decimals) and the mean within 0.005.
func TestADBenchAUC(t *testing.T) {
	anchors := shareddata.MedianAUCs(t, "iforest")
	medians := shareddata.ADBenchAnchors(t, anchors, 0.01, nil, func(seed uint64) detector.Detector {
		f, _ := New(Config{Src: nprand.NewSource(seed)})
		return f
	})
	var sum, ref float64
	for _, name := range slices.Sorted(maps.Keys(medians)) {
		med := medians[name]
		sum += med
		ref += anchors[name]
	}
	mean, refMean := sum/float64(len(medians)), ref/float64(len(medians))
	t.Logf("mean AUC %.4f, scikit-learn %.4f", mean, refMean)
	if math.Abs(mean-refMean) > 0.005 {
		t.Errorf("mean AUC %.4f, scikit-learn %.4f", mean, refMean)
	}
}
