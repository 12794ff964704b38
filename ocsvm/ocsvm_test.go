package ocsvm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/detectortest"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/scale"
	"github.com/kernelad/anomaly/smo"
	"gonum.org/v1/gonum/mat"
)

// randX returns n × d standard normal rows drawn from PCG(seed, 2).
func randX(n, d int, seed uint64) *mat.Dense { return testmat.Normal(n, d, rand.NewPCG(seed, 2)) }

// TestNuProperty is issue 3, item 2: Schölkopf et al. (2001, Prop. 4) —
// the fraction of bounded SVs (α_i = 1/(νn), the training outliers) is at
// most ν and the fraction of SVs at least ν. The solver meets the KKT
// conditions to a tolerance, so one row of slack (1/n) is allowed.
func TestNuProperty(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewPCG(seed, 99))
		n := 100 + rng.IntN(400)
		d := 1 + rng.IntN(6)
		nu := 0.02 + 0.96*rng.Float64()
		gamma := math.Exp(rng.Float64()*4 - 3) // 0.05 … 2.7
		kern := []string{"rbf", "laplacian", "linear"}[rng.IntN(3)]
		t.Run(fmt.Sprintf("seed=%d/n=%d/d=%d/nu=%.3f/%s", seed, n, d, nu, kern), func(t *testing.T) {
			X := randX(n, d, seed)
			m, err := New(Config{Nu: nu, Kernel: kernel.Spec{Kind: kern, Gamma: gamma}})
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Fit(context.Background(), X); err != nil {
				t.Fatal(err)
			}
			st := m.Stats()
			fb, fs := float64(st.BoundedSV)/float64(n), float64(st.SV)/float64(n)
			t.Logf("bounded SV fraction %.4f ≤ ν %.4f ≤ SV fraction %.4f", fb, nu, fs)
			if fb > nu+1.0/float64(n) || nu > fs+1.0/float64(n) {
				t.Errorf("bounded SV fraction %.4f ≤ ν = %.4f ≤ SV fraction %.4f fails", fb, nu, fs)
			}
			var sum float64
			for _, a := range m.Coef() {
				sum += a
			}
			if math.Abs(sum-1) > 1e-9 {
				t.Errorf("Σα = %v, want 1", sum)
			}
		})
	}
}

// Predictions from the saved and reloaded model are identical, and the
// training scores match Score on the training rows (to single precision:
// the fit takes them from the solver's float32 kernel cache).
func TestPersistAndScore(t *testing.T) {
	X := randX(300, 4, 5)
	for _, params := range []map[string]string{
		{},
		{"kernel": "poly", "gamma": "0.3", "coef0": "1", "degree": "2", "nu": "0.2", "shrinking": "false"},
		{"kernel": "laplacian", "tol": "1e-4", "cache_mb": "1", "contamination": "0.05"},
	} {
		t.Run(fmt.Sprint(params), func(t *testing.T) {
			d, err := detector.New("ocsvm", params)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := d.Score(nil, X); !errors.Is(err, detector.ErrNotFitted) {
				t.Errorf("Score before Fit: %v", err)
			}
			s1 := testmat.FitScore(t, d, X, X)
			// The threshold flags about the contamination share of rows.
			lab := method.Label(nil, s1, d.Threshold())
			var k int
			for _, v := range lab {
				k += v
			}
			c := 0.1
			if params["contamination"] != "" {
				c = 0.05
			}
			if math.Abs(float64(k)-c*300) > 3 {
				t.Errorf("%d of 300 rows flagged, want about %v", k, c*300)
			}
			d2 := detectortest.Reload(t, d)
			s2, err := d2.Score(nil, X)
			if err != nil {
				t.Fatal(err)
			}
			for i := range s1 {
				if s1[i] != s2[i] {
					t.Fatalf("row %d: score %v after reload, %v before", i, s2[i], s1[i])
				}
			}
			if d2.Threshold() != d.Threshold() {
				t.Errorf("threshold %v after reload, %v before", d2.Threshold(), d.Threshold())
			}
		})
	}
}

// Precomputed RBF kernel gives the same model as the built-in one.
func TestPrecomputed(t *testing.T) {
	X := randX(200, 3, 6)
	Y := randX(30, 3, 7)
	k := kernel.RBF{Gamma: 0.4}
	K := mat.NewDense(200, 200, nil)
	KY := mat.NewDense(30, 200, nil)
	for i := 0; i < 200; i++ {
		for j := 0; j < 200; j++ {
			K.Set(i, j, k.Eval(X.RawRowView(i), X.RawRowView(j)))
		}
		for r := 0; r < 30; r++ {
			KY.Set(r, i, k.Eval(Y.RawRowView(r), X.RawRowView(i)))
		}
	}
	a, _ := New(Config{Kernel: kernel.Spec{Gamma: 0.4}, Common: method.Common{Scale: scale.None}})
	b, _ := New(Config{Kernel: kernel.Spec{Kind: "precomputed"}})
	sa := testmat.FitScore(t, a, X, Y)
	sb := testmat.FitScore(t, b, K, KY)
	if d := testmat.MaxAbsDiff(sa, sb); d > 1e-9 {
		t.Errorf("precomputed and rbf scores differ by up to %g", d)
	}
}

// TestBadInput is issue 3, item 7 for the one-class SVM.
func TestBadInput(t *testing.T) {
	X := randX(50, 3, 8)
	indef := mat.NewDense(3, 3, []float64{1, 2, 0, 2, 1, 0, 0, 0, 1}) // eigenvalues 3, 1, −1
	asym := mat.NewDense(2, 2, []float64{1, 0.5, 0.4, 1})
	nan := mat.DenseCopyOf(X)
	nan.Set(4, 1, math.NaN())
	for _, tc := range []struct {
		name string
		cfg  Config
		X    mat.Matrix
		want error
	}{
		{"nu > 1", Config{Nu: 1.5}, nil, nil},
		{"nu < 0", Config{Nu: -0.1}, nil, nil},
		{"negative gamma", Config{Kernel: kernel.Spec{Gamma: -1}}, nil, nil},
		{"unknown kernel", Config{Kernel: kernel.Spec{Kind: "sigmoid"}}, nil, nil},
		{"contamination", Config{Common: method.Common{Contamination: 0.7}}, nil, nil},
		{"non-PSD precomputed", Config{Kernel: kernel.Spec{Kind: "precomputed"}}, indef, smo.ErrNotPSD},
		{"asymmetric precomputed", Config{Kernel: kernel.Spec{Kind: "precomputed"}}, asym, nil},
		{"NaN", Config{}, nan, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testmat.Rejects(t, func() (*OCSVM, error) { return New(tc.cfg) }, tc.X, tc.want)
		})
	}
	t.Run("wrong columns", func(t *testing.T) {
		m, _ := New(Config{})
		if err := m.Fit(context.Background(), X); err != nil {
			t.Fatal(err)
		}
		var de *detector.DimError
		if _, err := m.Score(nil, randX(3, 4, 1)); !errors.As(err, &de) {
			t.Errorf("Score with 4 columns: %v", err)
		}
	})
	t.Run("max_iter", func(t *testing.T) {
		d, err := detector.New("ocsvm", map[string]string{"max_iter": "3"})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Fit(context.Background(), X); err != nil {
			t.Fatal(err)
		}
		if st := d.(*OCSVM).Stats(); st.Status != smo.IterationLimit || st.Iterations != 3 {
			t.Errorf("status %v after %d iterations, want the iteration limit after 3", st.Status, st.Iterations)
		}
	})
	t.Run("params", func(t *testing.T) {
		for _, p := range []map[string]string{{"nu": "0"}, {"gamma": "wide"}, {"cache_mb": "-1"}, {"nuu": "0.1"}, {"shrinking": "maybe"}} {
			if _, err := detector.New("ocsvm", p); err == nil {
				t.Errorf("%v accepted", p)
			}
		}
	})
	t.Run("corrupt state", func(t *testing.T) {
		m, _ := New(Config{})
		if _, err := m.decode([]byte("garbage"), 3); err == nil {
			t.Error("garbage decoded")
		}
	})
}

func TestFitHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, _ := New(Config{})
	if err := m.Fit(ctx, randX(3000, 3, 1)); !errors.Is(err, context.Canceled) {
		t.Errorf("Fit with a cancelled context: %v", err)
	}
}

// A *sparse.CSR input gives the same model as its dense copy.
func TestSparseInput(t *testing.T) {
	X := randX(150, 5, 12)
	X.Apply(func(_, _ int, v float64) float64 {
		return max(v, 0) // keep the positive half: a sparse matrix
	}, X)
	S := testmat.CSR(X)
	// Without a scale stage: standardising would centre the dense copy
	// but not the sparse matrix (centring would densify it).
	a, _ := New(Config{Common: method.Common{Scale: scale.None}})
	c, _ := New(Config{Common: method.Common{Scale: scale.None}})
	sa := testmat.FitScore(t, a, X, X)
	sc := testmat.FitScore(t, c, S, S)
	// gamma = scale sums the entries in another order for CSR: rounding.
	if d := testmat.MaxAbsDiff(sa, sc); d > 1e-12 {
		t.Fatalf("sparse and dense scores differ by up to %g", d)
	}
}

// Degenerate inputs: one row, duplicated rows, ν = 1 (every α at its bound,
// no free variable: ρ is the finite end of its KKT interval). Identical
// rows all score ρ − Σα k = 0 (every k = 1, Σα = 1, ρ = 1).
func TestEdgeCases(t *testing.T) {
	for _, X := range []*mat.Dense{
		mat.NewDense(1, 2, []float64{1, 2}),
		mat.NewDense(2, 2, []float64{1, 2, 1, 2}),
		mat.NewDense(5, 1, []float64{3, 3, 3, 3, 3}),
	} {
		for _, nu := range []float64{0.01, 0.5, 1} {
			m, err := New(Config{Nu: nu})
			if err != nil {
				t.Fatal(err)
			}
			s := testmat.FitScore(t, m, X, X)
			for i, v := range s {
				if math.Abs(v) > 1e-12 {
					t.Errorf("n=%d nu=%g: row %d scores %v, want 0", X.RawMatrix().Rows, nu, i, v)
				}
			}
		}
	}
}

// Score is safe for concurrent calls (run under -race) and reuses dst.
func TestConcurrentScore(t *testing.T) {
	X := randX(400, 3, 13)
	m, _ := New(Config{})
	want := testmat.FitScore(t, m, X, X)
	done := make(chan []float64)
	for g := 0; g < 4; g++ {
		go func() {
			s, _ := m.Score(make([]float64, 0, 400), X)
			done <- s
		}()
	}
	for g := 0; g < 4; g++ {
		s := <-done
		for i := range s {
			if s[i] != want[i] {
				t.Fatalf("row %d: %v, want %v", i, s[i], want[i])
			}
		}
	}
	dst := make([]float64, 400)
	if s, _ := m.Score(dst, X); &s[0] != &dst[0] {
		t.Error("dst not reused")
	}
}

// A model fitted on a sparse matrix with 10^6 columns keeps its support
// vectors sparse (and a scale stage compact): it saves in a few kilobytes (a dense support vector
// alone would be 8 MB), reloads to the same scores, and exports to LIBSVM
// with only the non-zeros.
func TestSparseModelStaysSparse(t *testing.T) {
	const n, d = 200, 1_000_000
	rng := rand.New(rand.NewPCG(9, 9))
	b := csr.NewBuilder(d)
	for i := 0; i < n; i++ {
		ind := []int{rng.IntN(d / 2), d/2 + rng.IntN(d/2)}
		if err := b.AddRow(ind, []float64{rng.NormFloat64(), rng.NormFloat64()}); err != nil {
			t.Fatal(err)
		}
	}
	S := b.Build(d)
	for _, c := range []struct{ kern, scaleRule string }{{"rbf", "none"}, {"poly", "none"}, {"rbf", "standard"}} {
		kern, scaleRule := c.kern, c.scaleRule
		m, err := detector.New("ocsvm", map[string]string{"kernel": kern, "scale": scaleRule})
		if err != nil {
			t.Fatal(err)
		}
		s1 := testmat.FitScore(t, m, S, S)
		var buf bytes.Buffer
		if err := detector.Save(&buf, m); err != nil {
			t.Fatal(err)
		}
		if buf.Len() > 64<<10 {
			t.Errorf("%s: saved model is %d bytes; the support vectors were densified", kern, buf.Len())
		}
		m2, err := detector.Load(&buf)
		if err != nil {
			t.Fatal(err)
		}
		s2, _ := m2.Score(nil, S)
		for i := range s1 {
			if s1[i] != s2[i] {
				t.Fatalf("%s: row %d: score %v after reload, %v before", kern, i, s2[i], s1[i])
			}
		}
		if scaleRule != "none" {
			continue // LIBSVM model files cannot hold a scale stage
		}
		var lib bytes.Buffer
		if err := m.(*OCSVM).WriteLIBSVM(&lib); err != nil {
			t.Fatal(err)
		}
		if lib.Len() > 64<<10 {
			t.Errorf("%s: LIBSVM export is %d bytes", kern, lib.Len())
		}
	}
}
