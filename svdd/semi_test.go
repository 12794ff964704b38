package svdd

import (
	"context"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/kernelad/anomaly/eval"
	"github.com/kernelad/anomaly/internal/shareddata"
	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/kernel"
)

// labelSome returns labels for FitLabeled: a share frac of the anomalies of
// y (at least one) labelled 1, chosen with a PCG seeded (seed, 7); every
// other row unlabeled (−1).
func labelSome(y []int, frac float64, seed uint64) []int {
	var anom []int
	for i, v := range y {
		if v == 1 {
			anom = append(anom, i)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	rng.Shuffle(len(anom), func(i, j int) { anom[i], anom[j] = anom[j], anom[i] })
	k := int(frac*float64(len(anom)) + 0.5)
	if k < 1 {
		k = 1
	}
	lab := make([]int, len(y))
	for i := range lab {
		lab[i] = -1
	}
	for _, i := range anom[:k] {
		lab[i] = 1
	}
	return lab
}

// TestSemiSupervisedHelps is issue 3, item 4: on cardio with 5 % of the
// train anomalies labelled (the rest of the train split unlabeled), SVDD
// with negative examples beats unlabeled SVDD in test AUC, median over split
// seeds 1–3, at ν = 0.5 (the default then) and ν = 0.1, with c_anomaly = C,
// at γ = scale, the width the issue was stated at. (At the later default
// γ = scale_scott the labels still help at ν = 0.5, median 0.9193 →
// 0.9234, and not at ν = 0.1, 0.8624 → 0.8617.)
func TestSemiSupervisedHelps(t *testing.T) {
	for _, nu := range []float64{0.5, 0.1} {
		var sup, uns []float64
		for seed := uint64(1); seed <= 3; seed++ {
			train, test := shareddata.ADBenchSplit(t, "6_cardio", seed)
			m, err := New(Config{Nu: nu, Kernel: kernel.Spec{Rule: kernel.ScaleRule}})
			if err != nil {
				t.Fatal(err)
			}
			s := testmat.FitScore(t, m, train.X, test.X)
			a0 := eval.AUCROC(s, test.Y)
			lab := labelSome(train.Y, 0.05, seed)
			if err := m.FitLabeled(context.Background(), train.X, lab); err != nil {
				t.Fatal(err)
			}
			s, _ = m.Score(nil, test.X)
			a1 := eval.AUCROC(s, test.Y)
			t.Logf("nu %g seed %d: %d labelled anomalies: AUC unlabeled %.4f, semi-supervised %.4f", nu, seed, m.Stats().Labeled, a0, a1)
			uns = append(uns, a0)
			sup = append(sup, a1)
		}
		sort.Float64s(uns)
		sort.Float64s(sup)
		t.Logf("nu %g: median AUC unlabeled %.4f, semi-supervised %.4f", nu, uns[1], sup[1])
		if !(sup[1] > uns[1]) {
			t.Errorf("nu %g: median semi-supervised AUC %.4f does not beat unlabeled %.4f", nu, sup[1], uns[1])
		}
	}
}
