package ocsvm

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/smo"
)

// checkGram accepts kernel matrices (an RBF Gram matrix of duplicated
// rows, singular, and the zero matrix), refuses a matrix with a clearly
// negative eigenvalue, reports its blocks rising to their total, and
// stops with ctx.Err() when its context has ended.
func TestCheckGram(t *testing.T) {
	X := randX(150, 3, 30)
	dup := mat.NewDense(300, 3, nil)
	for i := range 300 {
		dup.SetRow(i, X.RawRowView(i%150))
	}
	K := rbfGram(dup, 0.7) // rank ≤ 150 of 300
	var reps []int
	total := 0
	if err := checkGram(context.Background(), K, func(stage string, done, tot int) {
		if stage != "check" {
			t.Errorf("stage %q", stage)
		}
		reps, total = append(reps, done), tot
	}); err != nil {
		t.Fatalf("a singular RBF Gram matrix: %v", err)
	}
	// 300 rows in blocks of 64: 5 block columns, 5 + 4 + … + 1 units.
	if !slices.IsSorted(reps) || total != 15 || reps[len(reps)-1] != total {
		t.Errorf("progress %v of %d, want rising to 15", reps, total)
	}
	if err := CheckGram(mat.NewDense(4, 4, nil)); err != nil {
		t.Errorf("the zero matrix: %v", err)
	}
	// K − 0.01·I: its smallest eigenvalue is about −0.01, far beyond
	// rounding.
	neg := mat.DenseCopyOf(K)
	for i := range 300 {
		neg.Set(i, i, neg.At(i, i)-0.01)
	}
	if err := CheckGram(neg); !errors.Is(err, smo.ErrNotPSD) {
		t.Errorf("a matrix with eigenvalue −0.01: %v", err)
	}
	nan := mat.DenseCopyOf(K)
	nan.Set(7, 7, math.Inf(1))
	if err := CheckGram(nan); err == nil {
		t.Error("a matrix with +Inf on its diagonal passed")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := checkGram(ctx, K, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("with an ended context: %v", err)
	}
}
