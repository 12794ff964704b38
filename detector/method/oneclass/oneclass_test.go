package oneclass

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/kernel"
)

// Restore refuses every saved expansion whose sizes or values disagree,
// among them issue 34's: support vector width D = 2⁶² with four
// coefficients and no values, which passed when the size check multiplied
// (4·2⁶² wraps to 0 = len(SV)) and then panicked in a worker of
// smo.Expansion.Eval.
func TestRestoreRejects(t *testing.T) {
	ones := []float64{1, 1, 1, 1}
	rbf := kernel.Spec{Kind: "rbf"}
	for _, tc := range []struct {
		name string
		s    State
	}{
		{"wrapped width", State{D: 1 << 62, Coef: ones, Gamma: 1}},
		{"wrapped width, four values", State{D: 1<<62 + 1, SV: []float64{1, 2, 3, 4}, Coef: ones, Gamma: 1}}, // 4·(2⁶² + 1) wraps to 4
		{"width", State{D: 0, Coef: ones, Gamma: 1}},
		{"negative width", State{D: -2, SV: make([]float64, 8), Coef: ones, Gamma: 1}},
		{"no coefficients", State{D: 2, Gamma: 1}},
		{"values for 3", State{D: 2, SV: make([]float64, 6), Coef: ones, Gamma: 1}},
		{"indices without offsets", State{D: 2, SV: make([]float64, 8), SVInd: make([]int, 8), Coef: ones, Gamma: 1}},
		{"offsets for 3", State{D: 2, SV: []float64{1}, SVInd: []int{0}, SVPtr: []int{0, 0, 0, 1}, Coef: ones, Gamma: 1}},
		{"offsets past the values", State{D: 2, SV: []float64{1}, SVInd: []int{0}, SVPtr: []int{0, 0, 5, 0, 1}, Coef: ones, Gamma: 1}},
		{"offsets backwards", State{D: 2, SV: []float64{1, 2}, SVInd: []int{0, 1}, SVPtr: []int{0, 2, 1, 2, 2}, Coef: ones, Gamma: 1}},
		{"first offset", State{D: 2, SV: []float64{1}, SVInd: []int{0}, SVPtr: []int{1, 1, 1, 1, 1}, Coef: ones, Gamma: 1}},
		{"column past the width", State{D: 2, SV: []float64{1}, SVInd: []int{2}, SVPtr: []int{0, 1, 1, 1, 1}, Coef: ones, Gamma: 1}},
		{"negative column", State{D: 2, SV: []float64{1}, SVInd: []int{-1}, SVPtr: []int{0, 1, 1, 1, 1}, Coef: ones, Gamma: 1}},
		{"columns not ascending", State{D: 3, SV: []float64{1, 2}, SVInd: []int{2, 1}, SVPtr: []int{0, 2, 2, 2, 2}, Coef: ones, Gamma: 1}},
		{"indices and values differ", State{D: 2, SV: []float64{1}, SVInd: []int{0, 1}, SVPtr: []int{0, 1, 1, 1, 1}, Coef: ones, Gamma: 1}},
		{"NaN value", State{D: 1, SV: []float64{1, math.NaN(), 0, 0}, Coef: ones, Gamma: 1}},
		{"zero coefficient", State{D: 1, SV: make([]float64, 4), Coef: []float64{1, 0, 1, 1}, Gamma: 1}},
		{"infinite coefficient", State{D: 1, SV: make([]float64, 4), Coef: []float64{1, math.Inf(1), 1, 1}, Gamma: 1}},
		{"width zero", State{D: 1, SV: make([]float64, 4), Coef: ones, Gamma: 0}},
		{"width NaN", State{D: 1, SV: make([]float64, 4), Coef: ones, Gamma: math.NaN()}},
	} {
		if _, err := Restore(tc.s, rbf); err == nil {
			t.Errorf("%s: restored %+v", tc.name, tc.s)
		}
	}
	// The same sizes made consistent restore.
	for _, s := range []State{
		{D: 2, SV: make([]float64, 8), Coef: ones, Gamma: 1},
		{D: 1 << 62, SV: []float64{1}, SVInd: []int{1<<62 - 1}, SVPtr: []int{0, 1, 1, 1, 1}, Coef: ones, Gamma: 1},
	} {
		if _, err := Restore(s, rbf); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
}

// FitKernel gives sparse rows that the standard stage divided by their
// columns' deviations without centring them the width that the rule finds
// on the dense rows centred and divided alike: the scale and scale_scott
// rules about the column means, whose difference is rounding. Rows with
// fewer columns than non-zeros take the per-column path, wide ones the
// compact one. Other kernels and rules, and rows that are not sparse,
// get spec.Fit's width.
func TestFitKernelCentresSparseWidth(t *testing.T) {
	for _, dims := range [][2]int{{60, 5}, {40, 3000}} {
		n, d := dims[0], dims[1]
		rng := rand.New(rand.NewPCG(uint64(d), 3))
		dense := mat.NewDense(n, d, nil)
		for i := range n {
			for j := range 4 { // columns whose means lie far apart
				c := (i*7 + j*13) % d
				dense.Set(i, c, float64(10*(c%7))+rng.NormFloat64())
			}
		}
		sp := testmat.CSR(dense)
		centred := mat.DenseCopyOf(dense)
		for j := range d {
			col := mat.Col(nil, j, centred)
			var m float64
			for _, v := range col {
				m += v / float64(n)
			}
			for i := range n {
				centred.Set(i, j, col[i]-m)
			}
		}
		for _, rule := range []string{kernel.ScaleRule, kernel.ScaleScottRule} {
			spec := kernel.Spec{Kind: "rbf", Rule: rule}
			_, want, err := spec.Fit(centred, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, got, err := FitKernel(spec, sp, true)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-want) > 1e-12*want {
				t.Errorf("%d×%d %s: γ %v from the sparse rows, %v from the centred dense ones", n, d, rule, got, want)
			}
			_, uncentred, _ := spec.Fit(sp, nil)
			if math.Abs(uncentred-want) < 1e-3*want {
				t.Errorf("%d×%d %s: the uncentred width %v is the centred one %v: the test does not tell them apart", n, d, rule, uncentred, want)
			}
			if _, g, _ := FitKernel(spec, sp, false); g != uncentred {
				t.Errorf("%d×%d %s, not centred: γ %v, spec.Fit %v", n, d, rule, g, uncentred)
			}
			if _, g, _ := FitKernel(kernel.Spec{Kind: "poly", Rule: rule}, sp, true); g != uncentred {
				t.Errorf("%d×%d %s, poly: γ %v, spec.Fit %v", n, d, rule, g, uncentred)
			}
		}
	}
}
