package stm

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/detectortest"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/detector/method/oneclass"
	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/param"
	"github.com/kernelad/anomaly/randfeat"
)

// TestNewNeedsShape: a loop over the methods that builds each with no
// parameters and fits it failed at Fit for 1stm and r1stm (issue 31): New
// accepted them without a sample shape. New now refuses them with a
// parameter error naming shape and saying what to give, and the same loop
// with the data's shape in detector.Options fits every method.
func TestNewNeedsShape(t *testing.T) {
	X := testmat.Normal(40, 12, rand.NewPCG(1, 1))
	for _, name := range []string{"1stm", "r1stm", "r1svm"} {
		_, err := detector.New(name, nil)
		var pe *param.Error
		switch tensor := name != "r1svm"; {
		case tensor && (!errors.As(err, &pe) || pe.Name != "shape" || !strings.Contains(err.Error(), "shape=24x51")):
			t.Errorf("%s without a shape: New returned %v, want a *param.Error on shape saying what to give", name, err)
		case !tensor && err != nil:
			t.Errorf("%s: %v", name, err)
		}
		d, err := detector.New(name, nil, detector.Options{Shape: []int{4, 3}})
		if err != nil {
			t.Fatalf("%s with Options.Shape: %v", name, err)
		}
		if err := d.Fit(context.Background(), X); err != nil {
			t.Errorf("%s: Fit: %v", name, err)
		}
	}
}

// TestDecodeWrappedSizes: a model file whose sizes multiply past int's
// range must be refused, not wrap round to the length present (issue
// 34): an r1svm state with 4 features and no frequencies for a shared
// state of 2^62 columns (4·2^62 wraps to 0, the frequencies' length), and
// a 1stm state whose 4 coefficients have no support vectors.
func TestDecodeWrappedSizes(t *testing.T) {
	four := []float64{1, 1, 1, 1}
	r1svm, err := NewR1SVM(R1SVMConfig{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := method.EncodeState("r1svm", linearState{Gamma: 1, B: four, Weights: four})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r1svm.decode(b, 1<<62); err == nil {
		t.Errorf("r1svm: a state of 4 features and no frequencies decoded for 2^62 columns")
	}
	one, err := NewOneSTM(OneSTMConfig{Common: Common{Shape: []int{3, 2}}})
	if err != nil {
		t.Fatal(err)
	}
	b, err = method.EncodeState("1stm", oneSTMState{Exp: oneclass.State{D: 5, Coef: four, Gamma: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := one.decode(b, 6); err == nil {
		t.Errorf("1stm: a state of 4 coefficients and no support vectors decoded")
	}
}

// TestFitSourceEqualsFit: a fit that reads its rows chunk by chunk from a
// Source (5,000 rows of 4 × 3 samples, two chunks of the tensor methods'
// factorisation) saves the same bytes as a fit on the matrix, and scores
// alike, bit for bit.
func TestFitSourceEqualsFit(t *testing.T) {
	X := testmat.Normal(5000, 12, rand.NewPCG(2, 2))
	for _, name := range []string{"1stm", "r1stm", "r1svm"} {
		build := func() detector.Detector {
			d, err := detector.New(name, nil, detector.Options{Shape: []int{4, 3}})
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		a, b := build(), build()
		if !detectortest.FitsAlike(t, a, b, X, testmat.RowSource{X: X}) {
			t.Errorf("%s: the model fitted from a Source differs from the one fitted on the matrix", name)
		}
	}
}

// TestNewFourierIsRandfeats: the map newFourier draws (with its context
// checks) is randfeat.NewFourier's from the same source, bit for bit, so
// models keep the frequencies of earlier builds.
func TestNewFourierIsRandfeats(t *testing.T) {
	for _, c := range []struct{ d, D int }{{3, 50}, {1 << 17, 5}} {
		got, err := newFourier(context.Background(), 0.7, c.d, c.D, rand.NewPCG(4, 5))
		if err != nil {
			t.Fatal(err)
		}
		want := randfeat.NewFourier(kernel.RBF{Gamma: 0.7}, c.d, c.D, rand.NewPCG(4, 5))
		if !mat.Equal(got.W, want.W) || !slices.Equal(got.B, want.B) {
			t.Errorf("d = %d, D = %d: newFourier's map differs from randfeat.NewFourier's", c.d, c.D)
		}
	}
}
