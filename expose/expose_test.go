package expose

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/detectortest"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/randfeat"
	"github.com/kernelad/anomaly/scale"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// randData returns n × d standard normal data from seed.
func randData(n, d int, seed uint64) *mat.Dense { return testmat.Normal(n, d, rand.NewPCG(seed, 1)) }

func mustNew(t testing.TB, cfg Config) *EXPoSE {
	t.Helper()
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The batch embedding is the mean of the feature rows, computed here by
// forming the whole feature matrix, which the package itself never does.
func TestBatchEqualsMeanOfFeatures(t *testing.T) {
	X := randData(1037, 4, 1) // 1037 rows: not a multiple of the chunk size
	d := mustNew(t, Config{Map: RFF, Kernel: kernel.Spec{Gamma: 0.3}, Features: 300, ChunkRows: 100, Src: rand.NewPCG(7, 7), Common: method.Common{Scale: scale.None}})
	if err := d.Fit(context.Background(), X); err != nil {
		t.Fatal(err)
	}
	var Z mat.Dense
	d.FeatureMap().Transform(&Z, X)
	want := make([]float64, 300)
	for i := 0; i < 1037; i++ {
		floats.Add(want, Z.RawRowView(i))
	}
	floats.Scale(1.0/1037, want)
	if !floats.EqualApprox(d.Embedding(), want, 1e-13) {
		t.Fatalf("embedding differs from the mean feature row")
	}
	scores, err := d.Score(nil, X.Slice(0, 5, 0, 4))
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range scores {
		if w := -floats.Dot(Z.RawRowView(i), want); math.Abs(s-w) > 1e-13 {
			t.Fatalf("score %d = %v, want −⟨φ(x), w⟩ = %v", i, s, w)
		}
	}
}

// Theorem 1 of the paper: E‖w_T − w*‖² ≤ M²/T. Samples are drawn without
// replacement from a fixed data set whose batch embedding is w*; the mean
// over 30 seeds must stay under the bound for T = 10, 100, 1000.
func TestTheorem1(t *testing.T) {
	const n, seeds = 4000, 30
	X := randData(n, 5, 2)
	fm := randfeat.NewFourier(kernel.RBF{Gamma: 0.2}, 5, 500, rand.NewPCG(3, 3))
	wstar := meanFeatures(fm, X)
	for _, T := range []int{10, 100, 1000} {
		var mean float64
		for s := uint64(1); s <= seeds; s++ {
			smp := &sampler{rng: rand.New(rand.NewPCG(s, 99)), n: n}
			w := sgdOn(fm, X, T, smp.next, 1)
			mean += floats.Distance(w, wstar, 2) * floats.Distance(w, wstar, 2) / seeds
		}
		bound := 1.0 / float64(T) // M = 1
		t.Logf("T=%d: mean ‖w_T − w*‖² = %.3g, bound M²/T = %.3g", T, mean, bound)
		if mean > bound {
			t.Errorf("T=%d: mean squared distance %.4g exceeds M²/T = %.4g", T, mean, bound)
		}
	}
}

// meanFeatures returns the mean of φ over the rows of X, from the whole
// feature matrix (which the package itself never forms).
func meanFeatures(fm randfeat.Map, X *mat.Dense) []float64 {
	n, _ := X.Dims()
	var Z mat.Dense
	fm.Transform(&Z, X)
	w := make([]float64, fm.Dim())
	for i := range n {
		floats.Add(w, Z.RawRowView(i))
	}
	floats.Scale(1/float64(n), w)
	return w
}

// sgdOn runs T steps of Algorithm 1 (model.iterate) from w = 0 on the
// rows of X that next draws, 128 at a time, with radius M.
func sgdOn(fm randfeat.Map, X *mat.Dense, T int, next func([]int) []int, M float64) []float64 {
	_, d := X.Dims()
	m := &model{fm: fm, w: make([]float64, fm.Dim()), chunk: 128}
	idx := make([]int, 128)
	var buf mat.Dense
	for done := 0; done < T; {
		rows := next(idx[:min(128, T-done)])
		sub := mat.NewDense(len(rows), d, nil)
		for k, i := range rows {
			sub.SetRow(k, X.RawRowView(i))
		}
		m.iterate(featuresOf(fm, sub, 0, len(rows), &buf), M)
		done += len(rows)
	}
	return m.w
}

// SGD with T = n over a permutation, without an active projection (M =
// 10), is the running mean: w_{n+1} equals the batch embedding of the same
// map (the same seed and γ, no scale stage: both fits draw the map first).
func TestSGDFullPassIsMean(t *testing.T) {
	X := randData(300, 3, 4)
	fit := func(solver string) *EXPoSE {
		d := mustNew(t, Config{Map: RFF, Solver: solver, Iterations: 300, Radius: 10, Kernel: kernel.Spec{Gamma: 0.5}, Features: 200,
			Src: rand.NewPCG(5, 5), Common: method.Common{Scale: scale.None}})
		if err := d.Fit(context.Background(), X); err != nil {
			t.Fatal(err)
		}
		return d
	}
	if !floats.EqualApprox(fit(SGD).Embedding(), fit(Batch).Embedding(), 1e-12) {
		t.Fatal("a full SGD pass is not the mean embedding")
	}
}

// The sampler draws method.SampleIndices' rows, in the order drawn, and
// starts a new pass when every row has been drawn.
func TestSampler(t *testing.T) {
	for _, c := range []struct{ n, k int }{{10, 10}, {1000, 7}, {5, 1}} {
		got := (&sampler{rng: rand.New(rand.NewPCG(1, 2)), n: c.n}).next(make([]int, c.k))
		want := method.SampleIndices(rand.New(rand.NewPCG(1, 2)), c.n, c.k)
		if slices.Sort(got); !slices.Equal(got, want) {
			t.Fatalf("n=%d k=%d: sampler drew %v, SampleIndices %v", c.n, c.k, got, want)
		}
	}
	rows := (&sampler{rng: rand.New(rand.NewPCG(1, 2)), n: 4}).next(make([]int, 10)) // two full passes and a partial one
	counts := map[int]int{}
	for _, r := range rows {
		counts[r]++
	}
	for r := 0; r < 4; r++ {
		if counts[r] < 2 || counts[r] > 3 {
			t.Fatalf("row %d drawn %d times in %v", r, counts[r], rows)
		}
	}
}

func TestSparseEqualsDense(t *testing.T) {
	X := randData(200, 6, 8)
	// Zero out most entries so the CSR copy is genuinely sparse.
	X.Apply(func(i, j int, v float64) float64 {
		if (i+j)%3 != 0 {
			return 0
		}
		return v
	}, X)
	S := testmat.CSR(X)
	for _, solver := range []string{Batch, SGD} {
		dd := mustNew(t, Config{Map: RFF, Solver: solver, Iterations: 150, Features: 256, Src: rand.NewPCG(1, 1), Common: method.Common{Scale: scale.None}})
		ds := mustNew(t, Config{Map: RFF, Solver: solver, Iterations: 150, Features: 256, Src: rand.NewPCG(1, 1), Common: method.Common{Scale: scale.None}})
		a := testmat.FitScore(t, dd, X, X)
		c := testmat.FitScore(t, ds, S, S)
		if !floats.EqualApprox(a, c, 1e-12) {
			t.Fatalf("%s: sparse and dense scores differ", solver)
		}
		// The scale rule's variance is summed in a different order over the
		// stored non-zeros, so γ agrees to rounding, not bit for bit.
		if math.Abs(dd.Gamma()-ds.Gamma()) > 1e-12*dd.Gamma() {
			t.Fatalf("%s: scale gamma differs: %v vs %v", solver, dd.Gamma(), ds.Gamma())
		}
	}
}

func TestPartialFitBatchEqualsFit(t *testing.T) {
	X := randData(500, 3, 9)
	full := mustNew(t, Config{Map: RFF, Kernel: kernel.Spec{Gamma: 0.4}, Features: 128, Src: rand.NewPCG(2, 2), Common: method.Common{Scale: scale.None}})
	part := mustNew(t, Config{Map: RFF, Kernel: kernel.Spec{Gamma: 0.4}, Features: 128, Src: rand.NewPCG(2, 2), Common: method.Common{Scale: scale.None}})
	if err := full.Fit(context.Background(), X); err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]int{{0, 123}, {123, 400}, {400, 500}} {
		if err := part.PartialFit(context.Background(), X.Slice(r[0], r[1], 0, 3)); err != nil {
			t.Fatal(err)
		}
	}
	if !floats.EqualApprox(full.Embedding(), part.Embedding(), 1e-13) {
		t.Fatal("partial fits do not add up to the batch embedding")
	}
}

// Under the SGD solver PartialFit continues Algorithm 1 over the rows in
// order: three partial fits take the same steps, with the same step sizes
// 1/t, as one partial fit of all the rows, so the iterates agree bit for
// bit; a partial fit that is cancelled, or refused (a row of another
// width), leaves the model as it was; and a loaded model continues as the
// one it was saved from.
func TestPartialFitSGDContinues(t *testing.T) {
	X := randData(500, 3, 9)
	newDet := func() *EXPoSE {
		return mustNew(t, Config{Map: RFF, Solver: SGD, Kernel: kernel.Spec{Gamma: 0.4}, Features: 128, Src: rand.NewPCG(2, 2), Common: method.Common{Scale: scale.None}})
	}
	whole, part := newDet(), newDet()
	if err := whole.PartialFit(context.Background(), X); err != nil {
		t.Fatal(err)
	}
	for k, r := range [][2]int{{0, 123}, {123, 400}, {400, 500}} {
		if err := part.PartialFit(context.Background(), X.Slice(r[0], r[1], 0, 3)); err != nil {
			t.Fatal(err)
		}
		if k != 1 {
			continue
		}
		before := part.Embedding()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := part.PartialFit(ctx, X); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled partial fit: %v", err)
		}
		if err := part.PartialFit(context.Background(), randData(5, 4, 1)); err == nil {
			t.Fatal("a partial fit of 4 columns after 3 succeeded")
		}
		if !slices.Equal(before, part.Embedding()) {
			t.Fatal("a failed partial fit changed the model")
		}
		part = detectortest.Reload(t, part).(*EXPoSE)
	}
	if !slices.Equal(whole.Embedding(), part.Embedding()) {
		t.Fatal("partial fits over the rows in order do not continue Algorithm 1")
	}
}

func TestSaveLoad(t *testing.T) {
	X := randData(300, 4, 10)
	params := map[string]string{"map": "rff", "features": "64", "seed": "3", "solver": "sgd", "iterations": "200"}
	d, err := detector.New("expose", params)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Fit(context.Background(), X); err != nil {
		t.Fatal(err)
	}
	l := detectortest.Reload(t, d)
	if desc, _ := detector.Describe(l); desc.Method != "expose" {
		t.Fatalf("loaded a %q model", desc.Method)
	}
	a, _ := d.Score(nil, X)
	b, _ := l.Score(nil, X)
	if !floats.Equal(a, b) || d.Threshold() != l.Threshold() {
		t.Fatal("loaded model scores differently")
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		name   string
		params map[string]string
	}{
		{"features zero", map[string]string{"map": "rff", "features": "0"}},
		{"bad solver", map[string]string{"solver": "adam"}},
		{"bad gamma", map[string]string{"gamma": "-1"}},
		{"gamma text", map[string]string{"gamma": "wide"}},
		{"contamination", map[string]string{"contamination": "0.7"}},
		{"orf laplacian", map[string]string{"map": "orf", "kernel": "laplacian"}},
		{"unknown key", map[string]string{"gama": "1"}},
		{"negative epsilon", map[string]string{"epsilon": "-0.1"}},
		{"huge T", map[string]string{"epsilon": "1e-9", "solver": "sgd"}},
	} {
		if _, err := detector.New("expose", c.params); err == nil {
			t.Errorf("%s: no error for %v", c.name, c.params)
		}
	}
	d, err := detector.New("expose", map[string]string{"epsilon": "0.1", "solver": "sgd"})
	if err != nil {
		t.Fatal(err)
	}
	if T := d.(*EXPoSE).Iterations(); T != 100 { // ⌈M²/ε²⌉ = ⌈1/0.01⌉
		t.Fatalf("T from epsilon 0.1 = %d, want 100", T)
	}
}

func TestInputErrors(t *testing.T) {
	d := mustNew(t, Config{Map: RFF, Features: 16})
	if _, err := d.Score(nil, randData(2, 2, 1)); err != detector.ErrNotFitted {
		t.Fatalf("score before fit: %v", err)
	}
	bad := randData(5, 2, 1)
	bad.Set(3, 1, math.NaN())
	var ve *detector.ValueError
	if err := d.Fit(context.Background(), bad); err == nil || !asValueError(err, &ve) || ve.Row != 3 || ve.Col != 1 {
		t.Fatalf("NaN: %v", err)
	}
	if err := d.Fit(context.Background(), randData(20, 2, 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Score(nil, randData(2, 3, 1)); err == nil {
		t.Fatal("wrong feature count accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := d.Fit(ctx, randData(5000, 2, 1)); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled fit: %v", err)
	}
}

func asValueError(err error, ve **detector.ValueError) bool {
	return errors.As(err, ve)
}

// TestSGDThresholdRows: the sgd solver sets the threshold from the scores
// of its sample of stage_rows rows, every row when there are fewer. It
// used to set it from the rows it visited: with iterations=1 that was one
// row's score, and scoring the 100 training rows flagged 99 of them (the
// warning then named the 1 scored row of 100). Now iterations=1 scores
// all 100 rows and flags c·n of them with no warning, and a sample of one
// row (stage_rows=1) warns that the threshold comes from 1 of the 100.
func TestSGDThresholdRows(t *testing.T) {
	X := testmat.NormalSeed(100, 3, 1)
	for _, tc := range []struct {
		params map[string]string
		want   string
	}{
		{map[string]string{"solver": "sgd", "iterations": "1", "map": "rff", "features": "64"}, ""},
		{map[string]string{"solver": "sgd", "iterations": "1", "map": "rff", "features": "64", "stage_rows": "1"}, "scores of 1 of the 100 training rows"},
	} {
		d, err := detector.New("expose", tc.params)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Fit(context.Background(), X); err != nil {
			t.Fatal(err)
		}
		w := d.(interface{ Warning() string }).Warning()
		if tc.want == "" {
			sc, err := d.Score(nil, X)
			if err != nil {
				t.Fatal(err)
			}
			flagged := 0
			for _, v := range sc {
				if v > d.Threshold() {
					flagged++
				}
			}
			if lo, hi, _ := detectortest.FlaggedBounds(sc, 0.1); w != "" || flagged < lo || flagged > hi {
				t.Errorf("%v: %d of 100 rows flagged (want %d..%d), warning %q", tc.params, flagged, lo, hi, w)
			}
		} else if !strings.Contains(w, tc.want) {
			t.Errorf("%v: warning %q, want one naming the 1 scored row of 100", tc.params, w)
		}
	}
}

// Under the SGD solver the width rule reads the sample of DefaultStageRows
// rows the scale stage is fitted on when n is larger; scale_scott's factor n^(2/(d+4)) must still
// count all n rows: with the same seed (the same sample) its γ is the
// scale rule's times n^(2/(d+4)), n = 12,000, d = 2.
func TestSGDScaleScottCountsAllRows(t *testing.T) {
	const n, dim = DefaultStageRows + 2000, 2
	X := testmat.NormalSeed(n, dim, 3)
	gamma := func(rule string) float64 {
		d := mustNew(t, Config{Map: RFF, Features: 20, Solver: SGD, Iterations: 10, Kernel: kernel.Spec{Rule: rule}, Src: rand.NewPCG(4, 4), Common: method.Common{Scale: scale.None}})
		if err := d.Fit(context.Background(), X); err != nil {
			t.Fatal(err)
		}
		return d.Gamma()
	}
	want := gamma(kernel.ScaleRule) * math.Pow(n, 2.0/(dim+4))
	if got := gamma(kernel.ScaleScottRule); math.Abs(got-want) > 1e-13*want {
		t.Errorf("SGD γ = %.17g, want the scale rule's × n^(2/(d+4)) = %.17g", got, want)
	}
}
