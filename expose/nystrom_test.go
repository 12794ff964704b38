package expose

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/detectortest"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/scale"
)

// exactScores returns −(1/n) Σ_i k(x_i, y) for every row y of Y: the
// score of the exact kernel mean embedding, summed here pair by pair.
func exactScores(k kernel.Kernel, X, Y *mat.Dense) []float64 {
	n, _ := X.Dims()
	r, _ := Y.Dims()
	s := make([]float64, r)
	for j := range r {
		var sum float64
		for i := range n {
			sum += k.Eval(X.RawRowView(i), Y.RawRowView(j))
		}
		s[j] = -sum / float64(n)
	}
	return s
}

// nystromFit fits map=nystrom with every one of the rows of X a landmark,
// no scale stage and γ given.
func nystromFit(t testing.TB, X *mat.Dense, cfg Config) *EXPoSE {
	t.Helper()
	n, _ := X.Dims()
	cfg.Map, cfg.Landmarks, cfg.Common.Scale = Nystrom, n, scale.None
	d := mustNew(t, cfg)
	if err := d.Fit(context.Background(), X); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestNystromEqualsExactEmbedding (issue 35, must-show 1): with every
// training row a landmark the Nyström map reproduces the Gram matrix, so
// the batch scores equal the exact kernel mean embedding's
// −(1/n) Σ_i k(x_i, y), within 1e-9 of its magnitude, on the training
// rows and on rows of another draw (one of them far from every row), for
// the rbf and laplacian kernels. The widths keep K_nn well conditioned
// (every eigenvalue above the cut-off: the map keeps rank n).
func TestNystromEqualsExactEmbedding(t *testing.T) {
	X := randData(120, 5, 21)
	Y := mat.NewDense(41, 5, nil)
	Y.Stack(X.Slice(0, 20, 0, 5), randData(21, 5, 22))
	Y.Set(40, 0, 4) // a row the data barely reach
	for _, spec := range []kernel.Spec{{Kind: "rbf", Gamma: 0.4}, {Kind: "laplacian", Gamma: 0.5}} {
		d := nystromFit(t, X, Config{Kernel: spec, Src: rand.NewPCG(3, 3)})
		if r := d.FeatureMap().(interface{ Rank() int }).Rank(); r != 120 {
			t.Fatalf("%s: the map kept rank %d of 120", spec.Kind, r)
		}
		got, err := d.Score(nil, Y)
		if err != nil {
			t.Fatal(err)
		}
		want := exactScores(d.model().ny.K, X, Y)
		var worst float64
		for i := range want {
			worst = math.Max(worst, math.Abs(got[i]-want[i])/math.Abs(want[i]))
		}
		t.Logf("%s: worst relative difference %.3g (scores %.3g … %.3g)", spec.Kind, worst, floats.Min(want), floats.Max(want))
		if worst > 1e-9 {
			t.Errorf("%s: scores differ from the exact embedding's by %.3g relative, want ≤ 1e-9", spec.Kind, worst)
		}
	}
}

// model returns the fitted model (tests).
func (d *EXPoSE) model() *model { m, _ := d.Model(); return m }

// TestNystromSGDTheorem1 (issue 35, must-show 1): with every training row
// a landmark the map is the same for every seed (the n landmarks in the
// rows' order), and the batch embedding is w* of the exact kernel mean
// embedding (TestNystromEqualsExactEmbedding). The SGD iterate after T
// steps must satisfy Theorem 1, E‖w_T − w*‖² ≤ M²/T (M = 1), as a mean
// over 20 seeds, at T = 10, 40 and 160 of the 400 rows, and shrink at its
// rate: the error at T = 160 must be below a quarter of that at T = 10
// (the rate 1/T gives a sixteenth; sampling without replacement, a
// little less). An SGD whose step does not average, or a map that
// changed between the solvers, fails both.
func TestNystromSGDTheorem1(t *testing.T) {
	const n, seeds = 400, 20
	X := randData(n, 5, 23)
	spec := kernel.Spec{Gamma: 0.4}
	wstar := nystromFit(t, X, Config{Kernel: spec, Src: rand.NewPCG(1, 1)}).Embedding()
	errs := map[int]float64{}
	for _, T := range []int{10, 40, 160} {
		for s := uint64(1); s <= seeds; s++ {
			d := nystromFit(t, X, Config{Kernel: spec, Solver: SGD, Iterations: T, StageRows: -1, Src: rand.NewPCG(s, 7)})
			dist := floats.Distance(d.Embedding(), wstar, 2)
			errs[T] += dist * dist / seeds
		}
		t.Logf("T=%d: mean ‖w_T − w*‖² = %.3g, bound M²/T = %.3g", T, errs[T], 1/float64(T))
		if errs[T] > 1/float64(T) {
			t.Errorf("T=%d: mean squared distance %.4g exceeds M²/T = %.4g", T, errs[T], 1/float64(T))
		}
	}
	if r := errs[160] / errs[10]; !(r < 0.25) {
		t.Errorf("the error at T = 160 is %.3g of that at T = 10, want < 1/4 (rate 1/T: 1/16)", r)
	}
}

// TestNystromSaveLoad: a saved Nyström model (both solvers, and the batch
// solver with l1, which saves the mean beside the embedding) loads to a
// model that scores the same, bit for bit, without a factorisation; the
// state holds the landmarks, the Cholesky factor R and the embedding.
func TestNystromSaveLoad(t *testing.T) {
	X := randData(500, 6, 31)
	for _, params := range []map[string]string{
		{"solver": "batch"},
		{"solver": "sgd", "iterations": "300"},
		{"solver": "batch", "regularizer": "l1", "lambda": "0.001"},
	} {
		params["map"], params["landmarks"], params["seed"] = Nystrom, "80", "4"
		d, err := detector.New("expose", params)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Fit(context.Background(), X); err != nil {
			t.Fatal(err)
		}
		l := detectortest.Reload(t, d)
		a, _ := d.Score(nil, X)
		b, _ := l.Score(nil, X)
		if !floats.Same(a, b) || d.Threshold() != l.Threshold() {
			t.Fatalf("%v: loaded model scores differently", params)
		}
		m := d.(*EXPoSE).model()
		state, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		// 80 × 6 landmarks, R's 80·81/2 upper entries, 80 embedding (and
		// 80 mean for l1)
		arrays := 8 * (80*6 + 80*81/2 + 80)
		t.Logf("%v: state %d bytes, its arrays %d", params, len(state), arrays)
		if len(state) < arrays || len(state) > arrays+8*80+512 {
			t.Errorf("%v: state of %d bytes for %d bytes of arrays", params, len(state), arrays)
		}
	}
}

// TestNystromPartialFit: partial fits on an unfitted detector draw the
// landmarks from their first rows; the batch solver's embedding is then
// the mean of the map's features over every row given, and the scores
// −⟨z(y), w⟩, computed here from the whole feature matrix.
func TestNystromPartialFit(t *testing.T) {
	X := randData(700, 4, 32)
	d := mustNew(t, Config{Map: Nystrom, Landmarks: 150, Kernel: kernel.Spec{Gamma: 0.3}, Src: rand.NewPCG(5, 5),
		Common: method.Common{Scale: scale.None}})
	for _, part := range []mat.Matrix{X.Slice(0, 300, 0, 4), X.Slice(300, 700, 0, 4)} {
		if err := d.PartialFit(context.Background(), part); err != nil {
			t.Fatal(err)
		}
	}
	w := meanFeatures(d.FeatureMap(), X)
	if !floats.EqualApprox(d.Embedding(), w, 1e-13) {
		t.Fatal("the embedding after two partial fits is not the mean feature row")
	}
	var Z mat.Dense
	d.FeatureMap().Transform(&Z, X)
	got, err := d.Score(nil, X)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range got {
		if want := -floats.Dot(Z.RawRowView(i), w); math.Abs(s-want) > 1e-12 {
			t.Fatalf("row %d: score %v, want −⟨z(x), w⟩ = %v", i, s, want)
		}
	}
}

// TestNystromConfigErrors: the roughness regulariser needs a random map's
// frequencies; a model saved with more landmarks than the parameters
// allow, by a random map, or in version 2's layout (the eigen form's
// K_mm^{-1/2} and rank), does not load as a Nyström model.
func TestNystromConfigErrors(t *testing.T) {
	if _, err := detector.New("expose", map[string]string{"map": "nystrom", "regularizer": "roughness", "lambda": "0.1"}); err == nil {
		t.Error("no error for roughness on the nystrom map")
	}
	if _, err := detector.New("expose", map[string]string{"map": "nystrom", "landmarks": "0"}); err == nil {
		t.Error("no error for 0 landmarks")
	}
	X := randData(100, 3, 33)
	fitted := func(cfg Config) []byte {
		d := mustNew(t, cfg)
		if err := d.Fit(context.Background(), X); err != nil {
			t.Fatal(err)
		}
		b, err := d.model().MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	ny := fitted(Config{Map: Nystrom, Landmarks: 50})
	if _, err := mustNew(t, Config{Map: Nystrom, Landmarks: 49}).decode(ny, 3); err == nil {
		t.Error("a state of 50 landmarks decoded with landmarks=49")
	}
	if _, err := mustNew(t, Config{Map: Nystrom, Landmarks: 50}).decode(fitted(Config{Features: 50}), 3); err == nil {
		t.Error("a random map's state decoded as a Nyström model")
	}
	if _, err := mustNew(t, Config{Map: RFF, Features: 50}).decode(ny, 3); err == nil {
		t.Error("a Nyström state decoded as a random map")
	}
	var s state
	if err := method.DecodeState("expose", ny, &s); err != nil {
		t.Fatal(err)
	}
	m := len(s.Embedding)
	if _, err := mustNew(t, Config{Map: Nystrom, Landmarks: 50}).decode(ny, 3); err != nil || len(s.Factor) != m*(m+1)/2 {
		t.Fatalf("the state itself: %v, factor of %d values for %d landmarks", err, len(s.Factor), m)
	}
	// The state of version 2 (the eigen form's K_mm^{-1/2} and rank).
	type stateV2 struct {
		Gamma                 float64
		Dim                   int
		W, B, Embedding, Mean []float64
		N                     int
		Landmarks, Norm       []float64
		Rank                  int
	}
	old, err := method.EncodeState("expose", stateV2{Gamma: s.Gamma, Dim: s.Dim, Embedding: s.Embedding, N: s.N,
		Landmarks: s.Landmarks, Norm: make([]float64, m*m), Rank: m})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mustNew(t, Config{Map: Nystrom, Landmarks: 50}).decode(old, 3); err == nil || !strings.Contains(err.Error(), "layout") {
		t.Errorf("an eigen-based Nyström state of version 2: error %v", err)
	}
}

// TestPlanNystromEqualsFit: the seam of the Beam fit. PlanNystrom draws
// the landmark and threshold rows Fit draws, NystromMap builds Fit's map
// on the landmarks (bit for bit: the same factorisation of the same
// rows), and FromEmbedding of the mean feature row gives Fit's embedding
// and scores to rounding, from the sum of the kernel rows
// (NystromKernelRows, NystromEmbedding). The sum of the features,
// multiplied row by row, differed from Fit's by 2.6e-13 here, kernel
// rows from kernel.Cross by 2.9e-14.
func TestPlanNystromEqualsFit(t *testing.T) {
	X := randData(2000, 4, 34)
	cfg := func() Config {
		return Config{Map: Nystrom, Landmarks: 300, ThresholdRows: 500, Kernel: kernel.Spec{Gamma: 0.3},
			Src: rand.NewPCG(8, 8), Common: method.Common{Scale: scale.None}}
	}
	want := mustNew(t, cfg())
	if err := want.Fit(context.Background(), X); err != nil {
		t.Fatal(err)
	}
	lm, rows, err := PlanNystrom(cfg(), 2000, 4, 0.3)
	if err != nil {
		t.Fatal(err)
	}
	if len(lm) != 300 || len(rows) != 500 {
		t.Fatalf("planned %d landmarks and %d threshold rows, want 300 and 500", len(lm), len(rows))
	}
	ny, err := NystromMap(context.Background(), cfg(), denseRows(X, lm), 0.3)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(ny.Factor, want.model().ny.Factor) || !mat.Equal(ny.Landmarks, want.model().ny.Landmarks) {
		t.Fatal("NystromMap built another map than Fit")
	}
	var K mat.Dense
	NystromKernelRows(&K, ny, X)
	sum := make([]float64, 300)
	for i := range 2000 {
		floats.Add(sum, K.RawRowView(i))
	}
	got, err := FromEmbedding(cfg(), nil, ny, NystromEmbedding(ny, sum, 2000), 2000, 0.3, want.Threshold())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := got.Score(nil, X)
	b, _ := want.Score(nil, X)
	de, ds := floats.Distance(got.Embedding(), want.Embedding(), math.Inf(1)), floats.Distance(a, b, math.Inf(1))
	t.Logf("embedding differs by %.3g (norm %.3g), scores by %.3g", de, floats.Norm(want.Embedding(), 2), ds)
	if de > 1e-12 || ds > 1e-12 {
		t.Fatal("FromEmbedding's embedding or scores differ from Fit's by more than 1e-12")
	}
	if _, _, err := PlanBatch(cfg(), 2000, 4, 0.3); err == nil {
		t.Error("PlanBatch planned a Nyström map")
	}
}
