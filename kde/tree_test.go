package kde

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/shareddata"
	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/scale"
	"gonum.org/v1/gonum/mat"
)

// TestTreeTolerance is the property test of the tree scorer: on random
// clustered data (several dimensions, kernels, bandwidths and leaf sizes) the
// density p̂ it returns must satisfy |p̂ − p| ≤ atol + rtol·p against the exact
// scorer's p for every query (the guarantee stated in the package
// documentation), and equal it to round-off (1e-12 relative in log p) when
// rtol = atol = 0.
func TestTreeTolerance(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	kernels := []Kernel{Gaussian, Tophat, Epanechnikov, Exponential, Linear, Cosine}
	trials := 0
	for trial := 0; trial < 18; trial++ {
		d := 1 + rng.IntN(6)
		n := 200 + rng.IntN(400)
		X := mat.NewDense(n, d, nil)
		for i := 0; i < n; i++ {
			c := float64(rng.IntN(3)) * 3
			for j := 0; j < d; j++ {
				X.Set(i, j, c+rng.NormFloat64()*(0.2+rng.Float64()))
			}
		}
		Q := mat.NewDense(100, d, nil)
		for i := 0; i < 100; i++ {
			for j := 0; j < d; j++ {
				Q.Set(i, j, rng.Float64()*10-2)
			}
		}
		kern := kernels[trial%len(kernels)]
		h := math.Pow(10, -1+1.5*rng.Float64())
		leaf := 1 + rng.IntN(50)
		exact, _ := New(Config{Kernel: kern, Bandwidth: h, Algorithm: Exact})
		if err := exact.Fit(context.Background(), X); err != nil {
			t.Fatal(err)
		}
		pe, _ := exact.LogDensity(nil, Q)
		for _, tol := range []struct{ rtol, atol float64 }{{0, 0}, {1e-8, 0}, {1e-4, 0}, {0.1, 0}, {0, 1e-4}, {1e-3, 1e-6}} {
			tree, _ := New(Config{Kernel: kern, Bandwidth: h, Algorithm: Tree, RTol: tol.rtol, ATol: tol.atol, LeafSize: leaf})
			if err := tree.Fit(context.Background(), X); err != nil {
				t.Fatal(err)
			}
			pt, _ := tree.LogDensity(nil, Q)
			trials++
			for i := range pe {
				if math.IsNaN(pt[i]) {
					t.Fatalf("NaN log-density")
				}
				if tol.rtol == 0 && tol.atol == 0 {
					if pt[i] != pe[i] && math.Abs(pt[i]-pe[i]) > 1e-12*math.Max(1, math.Abs(pe[i])) {
						t.Errorf("%v h=%.3g d=%d exact tree: log p %v, want %v", kern, h, d, pt[i], pe[i])
					}
					continue
				}
				p, q := math.Exp(pe[i]), math.Exp(pt[i])
				// 1e-12 relative slack for round-off in the two sums.
				if math.Abs(q-p) > tol.atol+tol.rtol*p+1e-12*p {
					t.Errorf("%v h=%.3g d=%d rtol=%g atol=%g: p̂ = %.17g, p = %.17g", kern, h, d, tol.rtol, tol.atol, q, p)
				}
			}
		}
	}
	t.Logf("%d tree configurations × 100 queries checked", trials)
}

// TestDuplicates: every training row identical, or few distinct rows
// repeated many times — nothing divides by zero, no score is NaN, for every
// kernel, scorer and rule (cv included).
func TestDuplicates(t *testing.T) {
	same := mat.NewDense(200, 3, nil)
	for i := 0; i < 200; i++ {
		same.SetRow(i, []float64{0.5, 0.25, 1})
	}
	few := mat.NewDense(300, 2, nil)
	for i := 0; i < 300; i++ {
		few.SetRow(i, []float64{float64(i % 3), float64(i % 2)})
	}
	q := mat.NewDense(3, 3, []float64{0.5, 0.25, 1, 0.5, 0.3, 1, 4, 4, 4})
	for _, X := range []*mat.Dense{same, few} {
		_, d := X.Dims()
		for _, kern := range []Kernel{Gaussian, Tophat, Epanechnikov, Exponential, Linear, Cosine} {
			for _, cfg := range []Config{{Rule: Scott}, {Rule: CV}, {Rule: Silverman, Algorithm: Tree}, {Rule: Scott, Algorithm: Tree, RTol: 1e-3}} {
				cfg.Kernel = kern
				k, _ := New(cfg)
				if err := k.Fit(context.Background(), X); err != nil {
					t.Fatalf("%v %+v: %v", kern, cfg, err)
				}
				s, err := k.Score(nil, q.Slice(0, 3, 0, d))
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range s {
					if math.IsNaN(v) {
						t.Errorf("%v %+v: NaN score", kern, cfg)
					}
				}
			}
		}
	}
}

// TestDuplicateHeavyData runs 16_http and 34_smtp (seed 1 of the ADBench
// split; mostly duplicate rows in 3 columns) through every kernel with the
// exact and the tree scorer: no NaN score, and the tree at rtol = 0 equals
// the exact scorer; the bandwidth rule cv must pick a finite bandwidth.
// Without ANOMALY_LONG=1 the first 1,000 training rows are used and the tree
// runs for the Gaussian and tophat kernels only (the full
// 7,000 take about a minute). Skipped when ../../shared/data is absent.
func TestDuplicateHeavyData(t *testing.T) {
	for _, name := range []string{"16_http", "34_smtp"} {
		tr, te := shareddata.ADBenchSplit(t, name, 1)
		Xte := te.X.(*mat.Dense).Slice(0, 500, 0, te.Cols())
		Xtr := tr.X
		if !testmat.Long() {
			Xtr = tr.X.(*mat.Dense).Slice(0, 1000, 0, tr.Cols())
		}
		cv, _ := New(Config{Rule: CV})
		if err := cv.Fit(context.Background(), Xtr); err != nil {
			t.Fatal(err)
		}
		if h := cv.Bandwidth(); !(h > 0) || math.IsInf(h, 0) {
			t.Errorf("%s: cv bandwidth %v", name, h)
		}
		if s, _ := cv.Score(nil, Xte); math.IsNaN(s[0]) {
			t.Errorf("%s: cv NaN score", name)
		}
		t.Logf("%s: cv bandwidth %.4g (Scott %.4g)", name, cv.Bandwidth(), kernelScott(Xtr))
		for _, kern := range []Kernel{Gaussian, Tophat, Epanechnikov, Exponential, Linear, Cosine} {
			var ref []float64
			for _, alg := range []Algorithm{Exact, Tree} {
				if alg == Tree && kern != Gaussian && kern != Tophat && !testmat.Long() {
					continue
				}
				k, _ := New(Config{Kernel: kern, Algorithm: alg})
				s := testmat.FitScore(t, k, Xtr, Xte)
				nInf := 0
				for i, v := range s {
					if math.IsNaN(v) {
						t.Fatalf("%s %v alg %d: NaN score at row %d", name, kern, alg, i)
					}
					if math.IsInf(v, 1) {
						nInf++
					}
					if ref != nil && v != ref[i] && math.Abs(v-ref[i]) > 1e-9*math.Max(1, math.Abs(ref[i])) {
						t.Fatalf("%s %v: tree score %v, exact %v", name, kern, v, ref[i])
					}
				}
				if math.IsNaN(k.Threshold()) {
					t.Errorf("%s %v: NaN threshold", name, kern)
				}
				t.Logf("%s %-12v alg %d: h=%.3f, %d of %d test scores +Inf, threshold %.4g", name, kern, alg, k.Bandwidth(), nInf, len(s), k.Threshold())
				ref = s
			}
		}
	}
}

func kernelScott(X mat.Matrix) float64 {
	n, d := X.Dims()
	return math.Pow(float64(n), -1/float64(d+4))
}

// TestTreeExtremeBandwidth: at a bandwidth whose square underflows (h
// below 1e-154) or overflows (above 1e154) the tree scorer's Gaussian
// log-kernel −r²/(2h²) was 0/0 at r = 0 (a query on a training row) and
// ∞/∞ where r² overflows (a query near 1e160): NaN scores, found by
// FuzzDecodeKDE. It must agree with the exact scorer (1e-12 relative, as
// TestTreeTolerance at rtol = 0), which scores both finite or +Inf.
func TestTreeExtremeBandwidth(t *testing.T) {
	X := mat.NewDense(6, 2, []float64{0, 0, 0, 0, 1, 2, 3, 1, 2, 2, 5, 5})
	Q := mat.NewDense(4, 2, []float64{0, 0, 1, 2, 0.5, 0.5, 1e160, 0})
	for _, h := range []float64{1e-200, 1e-155, 1e155, 1e200} {
		var want []float64
		for _, alg := range []Algorithm{Exact, Tree} {
			k, err := New(Config{Bandwidth: h, Algorithm: alg, LeafSize: 1, Common: method.Common{Scale: scale.None}})
			if err != nil {
				t.Fatal(err)
			}
			s := testmat.FitScore(t, k, X, Q)
			for i, v := range s {
				if math.IsNaN(v) {
					t.Fatalf("h=%g alg %d: row %d scores NaN", h, alg, i)
				}
				if want != nil && v != want[i] && math.Abs(v-want[i]) > 1e-12*math.Max(1, math.Abs(want[i])) {
					t.Errorf("h=%g: the tree scores row %d %v, the exact scorer %v", h, i, v, want[i])
				}
			}
			want = s
		}
	}
}
