package all_test

import (
	"context"
	"math"
	"testing"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/expose"
	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/ocsvm"
	"github.com/kernelad/anomaly/stm"
	"github.com/kernelad/anomaly/svdd"
)

// TestDefaultWidthScaleScott pins the default width rule of the kernel
// methods that take it, scale_scott: γ = ScaleGamma(X)·n^(2/(d+4)) on the
// rows as given (scale=none), here n = 40, d = 3; gamma=scale keeps
// ScaleGamma(X). (kde's bandwidth rule is pinned in kde.)
func TestDefaultWidthScaleScott(t *testing.T) {
	X := testmat.NormalSeed(40, 3, 5)
	scaleGamma := kernel.ScaleGamma(X)
	gammaOf := func(d detector.Detector) float64 {
		switch m := d.(type) {
		case *expose.EXPoSE:
			return m.Gamma()
		case *ocsvm.OCSVM:
			return m.Stats().Gamma
		case *svdd.SVDD:
			return m.Stats().Gamma
		case *stm.R1SVM:
			return m.Gamma()
		}
		t.Fatalf("%T: no width accessor", d)
		return 0
	}
	for _, method := range []string{"expose", "ocsvm", "svdd", "r1svm"} {
		for _, tc := range []struct {
			gamma string
			want  float64
		}{{"", scaleGamma * math.Pow(40, 2.0/7)}, {kernel.ScaleRule, scaleGamma}} {
			params := map[string]string{"scale": "none"}
			if tc.gamma != "" {
				params["gamma"] = tc.gamma
			}
			d, err := detector.New(method, params)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Fit(context.Background(), X); err != nil {
				t.Fatal(err)
			}
			if g := gammaOf(d); math.Abs(g-tc.want) > 1e-14*tc.want {
				t.Errorf("%s gamma=%q: γ = %.17g, want %.17g", method, tc.gamma, g, tc.want)
			}
		}
	}
}
