package kpca

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/detectortest"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/kernel"
	"gonum.org/v1/gonum/mat"
)

func TestErrors(t *testing.T) {
	for _, cfg := range []Config{
		{Kernel: kernel.Spec{Kind: "sigmoid"}}, {Kernel: kernel.Spec{Gamma: -1}}, {Components: -1}, {Variance: 1.5}, {Variance: 0.5, Components: 3},
		{Method: 4}, {Landmarks: -2}, {Common: method.Common{Contamination: 0.9}},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v): no error", cfg)
		}
	}
	p, _ := New(Config{})
	if _, err := p.Score(nil, mat.NewDense(1, 2, nil)); !errors.Is(err, detector.ErrNotFitted) {
		t.Errorf("Score before Fit: %v", err)
	}
	if err := p.Fit(context.Background(), mat.NewDense(1, 2, nil)); err == nil {
		t.Error("Fit on one row: no error")
	}
	if err := p.Fit(context.Background(), testmat.NormalSeed(40, 3, 1)); err != nil {
		t.Fatal(err)
	}
	var de *detector.DimError
	if _, err := p.Score(nil, mat.NewDense(1, 2, nil)); !errors.As(err, &de) {
		t.Errorf("wrong width: %v", err)
	}
	if _, err := p.decode([]byte{1, 2, 3}, 3); err == nil {
		t.Error("garbage state: no error")
	}
}

// TestVariance: with Variance = v the kept eigenvalues explain at least v
// of trace(K̃) and one fewer would not (definition); the exact and the
// Nyström (m = n) paths keep the same count.
func TestVariance(t *testing.T) {
	X := testmat.NormalSeed(200, 4, 2)
	for _, v := range []float64{0.5, 0.9, 0.99} {
		var counts []int
		for _, m := range []Method{Exact, Nystrom} {
			p, _ := New(Config{Variance: v, Method: m, Landmarks: 200})
			if err := p.Fit(context.Background(), X); err != nil {
				t.Fatal(err)
			}
			vals, ex := p.Eigenvalues()
			total := sum(vals) / ex // trace(K̃)
			if ex < v-1e-12 || (sum(vals)-vals[len(vals)-1])/total >= v {
				t.Errorf("variance %v method %d: %d components explain %.4f", v, m, len(vals), ex)
			}
			counts = append(counts, len(vals))
		}
		if counts[0] != counts[1] {
			t.Errorf("variance %v: exact keeps %d components, Nyström m=n %d", v, counts[0], counts[1])
		}
	}
}

func sum(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s
}

// TestNystromApproximates: with fewer landmarks than rows the Nyström scores
// rank like the exact ones (Spearman-free check: correlation > 0.95 on a
// smooth two-cluster problem) and are never below the exact part inside the
// landmark span (the bracket term is ≥ 0 up to round-off).
func TestNystromApproximates(t *testing.T) {
	X := testmat.NormalSeed(400, 3, 3)
	Y := testmat.NormalSeed(200, 3, 4)
	ex, _ := New(Config{Components: 10})
	ny, _ := New(Config{Components: 10, Method: Nystrom, Landmarks: 120, Src: rand.NewPCG(1, 1)})
	for _, p := range []*KPCA{ex, ny} {
		if err := p.Fit(context.Background(), X); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := ex.Score(nil, Y)
	b, _ := ny.Score(nil, Y)
	if r := corr(a, b); r < 0.95 {
		t.Errorf("correlation of exact and Nyström scores %.3f < 0.95", r)
	}
}

func corr(a, b []float64) float64 {
	n := float64(len(a))
	ma, mb := sum(a)/n, sum(b)/n
	var sab, saa, sbb float64
	for i := range a {
		sab += (a[i] - ma) * (b[i] - mb)
		saa += (a[i] - ma) * (a[i] - ma)
		sbb += (b[i] - mb) * (b[i] - mb)
	}
	return sab / math.Sqrt(saa*sbb)
}

// TestRegistryAndSave builds kpca through the registry with several
// parameter sets, checks the training share above the threshold and
// round-trips the model through detector.Save/Load.
func TestRegistryAndSave(t *testing.T) {
	X := testmat.NormalSeed(200, 4, 5)
	Y := testmat.NormalSeed(30, 4, 6)
	for _, p := range []map[string]string{
		{},
		{"kernel": "laplacian", "gamma": "0.3", "components": "8"},
		{"method": "nystrom", "landmarks": "60", "seed": "3", "variance": "0.8"},
		{"kernel": "poly", "components": "5", "contamination": "0.2"},
	} {
		d, err := detector.New("kpca", p)
		if err != nil {
			t.Fatal(err)
		}
		s := testmat.FitScore(t, d, X, X)
		above := 0
		for _, v := range s {
			if v > d.Threshold() {
				above++
			}
		}
		c := 0.1
		if p["contamination"] != "" {
			c = 0.2
		}
		if want := int(c * 200); above < want-1 || above > want+1 {
			t.Errorf("%v: %d of 200 training rows above the threshold, want about %d", p, above, want)
		}
		back := detectortest.Reload(t, d)
		a, _ := d.Score(nil, Y)
		b, _ := back.Score(nil, Y)
		for i := range a {
			if math.Abs(a[i]-b[i]) > 1e-12*math.Max(1, math.Abs(a[i])) {
				t.Fatalf("%v: loaded model scores %v, want %v", p, b[i], a[i])
			}
		}
	}
	for _, p := range []map[string]string{{"kernel": "sigmoid"}, {"gamma": "-2"}, {"method": "svd"}, {"components": "0"},
		{"variance": "0.5", "components": "4"}, {"landmarks": "0"}, {"colour": "red"}} {
		if _, err := detector.New("kpca", p); err == nil {
			t.Errorf("%v: no error", p)
		}
	}
}

func Example() {
	// Training rows on a circle; one query on it, one at its centre.
	n := 60
	train := mat.NewDense(n, 2, nil)
	for i := 0; i < n; i++ {
		a := 2 * math.Pi * float64(i) / float64(n)
		train.Set(i, 0, math.Cos(a))
		train.Set(i, 1, math.Sin(a))
	}
	query := mat.NewDense(2, 2, []float64{0, 1, 0, 0})
	p, _ := New(Config{Kernel: kernel.Spec{Gamma: 1}, Components: 8})
	_ = p.Fit(context.Background(), train)
	s, _ := p.Score(nil, query)
	fmt.Printf("on the circle %.4f, centre %.4f\n", s[0], s[1])
	// Output: on the circle 0.0261, centre 0.9363
}

// TestNystromStateWithoutNorm: a Nyström model saved before the state held
// the landmark map (NystromNorm, NystromRank) still loads, rebuilding the
// map from the landmarks, and scores as the model it came from; a map of
// the wrong size is refused.
func TestNystromStateWithoutNorm(t *testing.T) {
	X, Y := testmat.NormalSeed(300, 4, 7), testmat.NormalSeed(40, 4, 8)
	p, _ := New(Config{Components: 6, Method: Nystrom, Landmarks: 50, Src: rand.NewPCG(2, 2)})
	if err := p.Fit(context.Background(), X); err != nil {
		t.Fatal(err)
	}
	m, _ := p.Model()
	want := make([]float64, 40)
	if err := m.Score(context.Background(), want, Y); err != nil {
		t.Fatal(err)
	}
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var s state
	if err := method.DecodeState("kpca", b, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.NystromNorm) != 50*50 || s.NystromRank != 50 {
		t.Fatalf("saved map of %d values, rank %d; want 2500, 50", len(s.NystromNorm), s.NystromRank)
	}
	for _, tc := range []struct {
		name string
		edit func(*state)
		ok   bool
	}{
		{"without the map", func(s *state) { s.NystromNorm, s.NystromRank = nil, 0 }, true},
		{"a map of the wrong size", func(s *state) { s.NystromNorm = s.NystromNorm[:49*49] }, false},
		{"a rank of 0", func(s *state) { s.NystromRank = 0 }, false},
	} {
		old := s
		tc.edit(&old)
		enc, err := method.EncodeState("kpca", old)
		if err != nil {
			t.Fatal(err)
		}
		dec, err := p.decode(enc, 4)
		if !tc.ok {
			if err == nil {
				t.Errorf("%s: loaded", tc.name)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := make([]float64, 40)
		if err := dec.Score(context.Background(), got, Y); err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: row %d scores %v, %v before saving", tc.name, i, got[i], want[i])
			}
		}
	}
}

// TestAllComponentsWarns: keeping every component (components = n−1, or
// variance = 1) reconstructs each training row exactly, so the training
// scores and the threshold are rounding (1.6e-15 on 100 Gaussian rows of 3
// columns) and every new row of the same distribution was flagged (100 of
// 100), with no warning. Now the fit warns; with 5 components it does not.
func TestAllComponentsWarns(t *testing.T) {
	X := testmat.NormalSeed(100, 3, 11)
	for _, c := range []struct {
		params map[string]string
		warn   bool
	}{
		{map[string]string{"components": "99"}, true},
		{map[string]string{"variance": "1"}, true},
		{map[string]string{"method": "nystrom", "landmarks": "100", "variance": "1"}, true},
		{map[string]string{"components": "5"}, false},
	} {
		d := detectortest.Fitted(t, "kpca", c.params, X)
		w := d.(*KPCA).Warning()
		if got := strings.Contains(w, "reconstruct every training row"); got != c.warn {
			t.Errorf("%v: warning %q, want the all-components one: %v", c.params, w, c.warn)
		}
	}
}

// TestExhaustiveScoresSettle: on one binary column (140 zeros, 159 ones)
// the default rule keeps a component that reconstructs every row, and the
// training scores are rounding. Scoring the training rows flagged all 299
// of them: the threshold came from the eigendecomposition's rounding and
// Score's differs. The fit now sets those scores to 0 and the near-tie
// rescoring puts every row through Score's path, so the training rows
// are flagged as the fit flagged them: at most the contamination share.
func TestExhaustiveScoresSettle(t *testing.T) {
	X := mat.NewDense(299, 1, nil)
	for i := 140; i < 299; i++ {
		X.Set(i, 0, 1)
	}
	d, err := detector.New("kpca", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Fit(context.Background(), X); err != nil {
		t.Fatal(err)
	}
	flags, err := detector.Predict(context.Background(), nil, d, X)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for _, f := range flags {
		n += f
	}
	if n > 30 {
		t.Errorf("%d of 299 training rows flagged, want at most 10%% (contamination 0.1)", n)
	}
}
