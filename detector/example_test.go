package detector_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	_ "github.com/kernelad/anomaly/gauss" // registers "gauss"
)

// train returns 200 rows of two features around the origin, on a grid
// (no random draw: the examples' output is exact).
func train() *mat.Dense {
	X := mat.NewDense(200, 2, nil)
	for i := range 200 {
		X.Set(i, 0, math.Sin(float64(i)))
		X.Set(i, 1, math.Cos(float64(3*i))/2)
	}
	return X
}

// queries are two rows: one among the training rows, one far from them.
var queries = mat.NewDense(2, 2, []float64{0.1, 0.1, 6, -4})

// Build a detector by name with key=value parameters (what the command
// line's --set gives), fit it and score new rows: higher is more
// anomalous.
func ExampleNew() {
	d, err := detector.New("gauss", map[string]string{"contamination": "0.05"})
	if err != nil {
		panic(err)
	}
	if err := d.Fit(context.Background(), train()); err != nil {
		panic(err)
	}
	scores, err := d.Score(nil, queries)
	if err != nil {
		panic(err)
	}
	fmt.Println("the far row scores higher:", scores[1] > scores[0])
	desc, _ := detector.Describe(d)
	fmt.Println(desc.Method, "contamination", desc.Params["contamination"], "scale", desc.Params["scale"])
	// Output:
	// the far row scores higher: true
	// gauss contamination 0.05 scale standard
}

// Predict labels rows against the threshold the fit set from the
// contamination rate: 1 = anomaly.
func ExamplePredict() {
	d, _ := detector.New("gauss", nil)
	if err := d.Fit(context.Background(), train()); err != nil {
		panic(err)
	}
	labels, err := detector.Predict(context.Background(), nil, d, queries)
	if err != nil {
		panic(err)
	}
	fmt.Println(labels)
	// Output: [0 1]
}

// Save writes a fitted model; Load reads it back, whatever its method,
// and it scores as before, bit for bit.
func ExampleSave() {
	d, _ := detector.New("gauss", nil)
	if err := d.Fit(context.Background(), train()); err != nil {
		panic(err)
	}
	var file bytes.Buffer
	if err := detector.Save(&file, d); err != nil {
		panic(err)
	}
	e, err := detector.Load(&file)
	if err != nil {
		panic(err)
	}
	a, _ := d.Score(nil, queries)
	b, _ := e.Score(nil, queries)
	fmt.Println("same scores:", a[0] == b[0] && a[1] == b[1], "same threshold:", d.Threshold() == e.Threshold())
	// Output: same scores: true same threshold: true
}

// A progress callback receives each stage of a fit with the work done and
// its total; a stage ends at its total.
func ExampleOptions_progress() {
	last := map[string][2]int{}
	var stages []string
	progress := func(stage string, done, total int) {
		if _, ok := last[stage]; !ok {
			stages = append(stages, stage)
		}
		last[stage] = [2]int{done, total}
	}
	d, _ := detector.New("gauss", nil, detector.Options{Progress: progress})
	if err := d.Fit(context.Background(), train()); err != nil {
		panic(err)
	}
	for _, s := range stages {
		fmt.Println(s, last[s])
	}
	// Output:
	// moments [200 200]
	// score [200 200]
}

// A fit or a score stops soon after its context ends and returns the
// context's error; a fit that fails leaves the detector as it was, so the
// model of the earlier fit still scores.
func Example_cancellation() {
	d, _ := detector.New("gauss", nil)
	if err := d.Fit(context.Background(), train()); err != nil {
		panic(err)
	}
	before, _ := d.Score(nil, queries)

	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	err := d.Fit(ctx, train())
	fmt.Println("refit:", errors.Is(err, context.DeadlineExceeded))
	_, err = detector.ScoreContext(ctx, d, nil, queries)
	fmt.Println("score:", errors.Is(err, context.DeadlineExceeded))

	after, _ := d.Score(nil, queries)
	fmt.Println("the earlier model still scores:", before[1] == after[1])
	// Output:
	// refit: true
	// score: true
	// the earlier model still scores: true
}

// Sparse input is a james-bowman/sparse matrix; a method that works on
// dense rows reads it in one pass over its non-zeros, and a sparse matrix
// and a dense copy of it give the same scores.
func Example_sparse() {
	dense := train()
	r, c := dense.Dims()
	coo := sparse.NewCOO(r, c, nil, nil, nil)
	for i := range r {
		for j := range c {
			if v := dense.At(i, j); math.Abs(v) > 0.3 { // keep the larger values: a sparse matrix
				coo.Set(i, j, v)
			} else {
				dense.Set(i, j, 0)
			}
		}
	}
	a, _ := detector.New("gauss", nil)
	b, _ := detector.New("gauss", nil)
	if err := a.Fit(context.Background(), dense); err != nil {
		panic(err)
	}
	if err := b.Fit(context.Background(), coo.ToCSR()); err != nil {
		panic(err)
	}
	sa, _ := a.Score(nil, queries)
	sb, _ := b.Score(nil, queries)
	fmt.Println("same scores:", sa[0] == sb[0] && sa[1] == sb[1])
	// Output: same scores: true
}

// Errors caused by data are typed: errors.As finds the row and column of
// a value that is not a number (one-based in messages), the feature
// counts of a matrix of the wrong width, too few rows, and a method name as another library spells it.
func Example_errors() {
	d, _ := detector.New("gauss", nil)
	X := train()
	X.Set(7, 1, math.NaN())
	var ve *detector.ValueError
	if err := d.Fit(context.Background(), X); errors.As(err, &ve) {
		fmt.Println("not a number at row", ve.Row+1, "column", ve.Col+1)
	}
	X.Set(7, 1, 0)
	if err := d.Fit(context.Background(), X); err != nil {
		panic(err)
	}
	var de *detector.DimError
	if _, err := d.Score(nil, mat.NewDense(1, 3, nil)); errors.As(err, &de) {
		fmt.Println("data has", de.Got, "columns, the model", de.Want)
	}
	var ee *detector.EmptyError
	if err := d.Fit(context.Background(), mat.NewDense(1, 2, nil)); errors.As(err, &ee) {
		fmt.Println(err)
	}
	var ue *detector.UnknownMethodError
	if _, err := detector.New("EllipticEnvelope", nil); errors.As(err, &ue) {
		fmt.Println("did you mean", ue.Suggest)
	}
	// Output:
	// not a number at row 8 column 2
	// data has 3 columns, the model 2
	// gauss: need at least 2 training rows, got 1
	// did you mean gauss
}
