package oneclass

import (
	"math"
	"testing"

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
