package method_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/method"
	_ "github.com/kernelad/anomaly/gauss"
)

// Before its first fit a detector has no threshold: Threshold is NaN (it
// was 0, a threshold every positive score passed), Score and Predict are
// ErrNotFitted.
func TestUnfitted(t *testing.T) {
	d, err := detector.New("gauss", nil)
	if err != nil {
		t.Fatal(err)
	}
	if th := d.Threshold(); !math.IsNaN(th) {
		t.Errorf("Threshold before Fit = %v, want NaN", th)
	}
	X := mat.NewDense(2, 2, []float64{1, 2, 3, 4})
	if _, err := d.Score(nil, X); !errors.Is(err, detector.ErrNotFitted) {
		t.Errorf("Score before Fit: %v, want ErrNotFitted", err)
	}
	if _, err := detector.Predict(context.Background(), nil, d, X); !errors.Is(err, detector.ErrNotFitted) {
		t.Errorf("Predict before Fit: %v, want ErrNotFitted", err)
	}
}

// Too few training rows is a typed error (*detector.EmptyError with
// MinRows) naming the method, and a cancelled fit's error names the
// method and wraps the context's error.
func TestTypedFitErrors(t *testing.T) {
	d, _ := detector.New("gauss", nil)
	err := d.Fit(context.Background(), mat.NewDense(1, 3, []float64{1, 2, 3}))
	var ee *detector.EmptyError
	if !errors.As(err, &ee) || ee.MinRows != 2 || ee.Rows != 1 || !strings.HasPrefix(err.Error(), "gauss: ") {
		t.Errorf("a fit of 1 row: %v (%#v), want a *detector.EmptyError with MinRows 2 naming gauss", err, ee)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = d.Fit(ctx, mat.NewDense(3, 1, []float64{1, 2, 3}))
	if !errors.Is(err, context.Canceled) || err.Error() != "gauss: context canceled" {
		t.Errorf("a cancelled fit: %q, want \"gauss: context canceled\"", err)
	}
}

// TestIsModel: a saved model is recognised from its first line, and data
// that only begin like one (or are shorter than the line) are not.
func TestIsModel(t *testing.T) {
	d, _ := detector.New("gauss", nil)
	if err := d.Fit(context.Background(), mat.NewDense(3, 1, []float64{1, 2, 4})); err != nil {
		t.Fatal(err)
	}
	var saved bytes.Buffer
	if err := detector.Save(&saved, d); err != nil {
		t.Fatal(err)
	}
	if !method.IsModel(bytes.NewReader(saved.Bytes())) {
		t.Error("a saved model: IsModel false")
	}
	for _, s := range []string{"", "ANOMALY-MODEL", "ANOMALY-MODEL,x\n", "a,b\n1,2\n"} {
		if method.IsModel(strings.NewReader(s)) {
			t.Errorf("%q: IsModel true", s)
		}
	}
}
