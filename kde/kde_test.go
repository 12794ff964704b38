package kde

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/detectortest"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/fastmath"
	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/scale"
	"gonum.org/v1/gonum/mat"
)

// TestNormalisation integrates c(h,d)·K(‖u‖/h) over R^d numerically in one
// and two dimensions (a Riemann sum on a fine grid): every kernel must give 1.
func TestNormalisation(t *testing.T) {
	const h = 0.7
	for _, k := range []Kernel{Gaussian, Tophat, Epanechnikov, Exponential, Linear, Cosine} {
		for _, d := range []int{1, 2} {
			c := math.Exp(k.logNorm(h, d))
			const step, lim = 0.004, 12.0
			var s float64
			for x := -lim; x <= lim; x += step {
				if d == 1 {
					r := math.Abs(x)
					s += math.Exp(k.logProfile(r, r*r, h)) * step
					continue
				}
				for y := -lim / 2; y <= lim/2; y += step * 2 {
					r2 := x*x + y*y
					s += math.Exp(k.logProfile(math.Sqrt(r2), r2, h)) * step * step * 2
				}
			}
			if got := c * s; math.Abs(got-1) > 3e-3 {
				t.Errorf("%v d=%d: ∫ density = %.5f, want 1", k, d, got)
			}
		}
	}
}

// TestFarPoint: one training row at the origin, a query at distance r. The
// Gaussian log-density is −r²/(2h²) + log c(h,d) (formula), finite even where
// exp underflows; finite-support kernels give −Inf (score +Inf).
func TestFarPoint(t *testing.T) {
	train := mat.NewDense(1, 2, []float64{0, 0})
	far := mat.NewDense(1, 2, []float64{300, 400}) // r = 500
	for _, alg := range []Algorithm{Exact, Tree} {
		for _, k := range []Kernel{Gaussian, Tophat, Epanechnikov, Exponential, Linear, Cosine} {
			d, err := New(Config{Kernel: k, Bandwidth: 1, Algorithm: alg, Common: method.Common{Scale: scale.None}})
			if err != nil {
				t.Fatal(err)
			}
			s := testmat.FitScore(t, d, train, far)
			var want float64
			switch k {
			case Gaussian:
				want = 500*500/2.0 + math.Log(2*math.Pi) // −log((2π)^(−1) e^(−r²/2))
			case Exponential:
				want = 500 - k.logNorm(1, 2)
			default:
				want = math.Inf(1)
			}
			if s[0] != want && math.Abs(s[0]-want) > 1e-9*want {
				t.Errorf("alg %d %v: score %v, want %v", alg, k, s[0], want)
			}
		}
	}
}

func TestErrors(t *testing.T) {
	for _, cfg := range []Config{
		{Kernel: 9}, {Bandwidth: -1}, {Bandwidth: math.NaN()}, {RTol: -1}, {ATol: math.Inf(1)},
		{Common: method.Common{Contamination: 0.7}}, {LeafSize: -1}, {Rule: 7}, {Algorithm: 5}, {CVGrid: []float64{0}},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v): no error", cfg)
		}
	}
	d, _ := New(Config{})
	if _, err := d.Score(nil, mat.NewDense(1, 2, nil)); !errors.Is(err, detector.ErrNotFitted) {
		t.Errorf("Score before Fit: %v", err)
	}
	if err := d.Fit(context.Background(), testmat.NormalSeed(20, 3, 1)); err != nil {
		t.Fatal(err)
	}
	var de *detector.DimError
	if _, err := d.Score(nil, mat.NewDense(1, 2, nil)); !errors.As(err, &de) {
		t.Errorf("wrong width: %v", err)
	}
	var ve *detector.ValueError
	if _, err := d.Score(nil, mat.NewDense(1, 3, []float64{0, math.NaN(), 0})); !errors.As(err, &ve) {
		t.Errorf("NaN: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := d.Fit(ctx, testmat.NormalSeed(500, 3, 1)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Fit: %v", err)
	}
}

// TestRegistryErrors: bad parameters are refused by the registry, and a
// garbage state by the model's decoder. (Every kernel and bandwidth rule is
// built, fitted, thresholded and saved by the conformance suite's
// variants in conformance_test.go.)
func TestRegistryErrors(t *testing.T) {
	for _, p := range []map[string]string{{"kernel": "box"}, {"bandwidth": "-1"}, {"algorithm": "ball"}, {"rtol": "-1"}, {"leaf_size": "0"}, {"colour": "red"}} {
		if _, err := detector.New("kde", p); err == nil {
			t.Errorf("%v: no error", p)
		}
	}
	d, _ := New(Config{})
	if _, err := d.decode([]byte("garbage"), 3); err == nil {
		t.Error("garbage state: no error")
	}
}

// TestCV: on a sample from N(0, 1) in one dimension the leave-one-out
// choice must land near the asymptotically optimal Gaussian bandwidth
// 1.06·n^(−1/5) (Silverman's rule for normal data), within the grid's
// 10^0.1 spacing times sampling noise (a factor 2).
func TestCV(t *testing.T) {
	X := testmat.NormalSeed(800, 1, 5)
	d, _ := New(Config{Rule: CV})
	if err := d.Fit(context.Background(), X); err != nil {
		t.Fatal(err)
	}
	ref := 1.06 * math.Pow(800, -0.2)
	if h := d.Bandwidth(); h < ref/2 || h > ref*2 {
		t.Errorf("CV bandwidth %.4f, want within a factor 2 of %.4f", h, ref)
	}
}

func Example() {
	// Training rows around the origin; one query near them, one far away.
	train := mat.NewDense(4, 2, []float64{0, 0, 1, 0, 0, 1, 1, 1})
	query := mat.NewDense(2, 2, []float64{0.5, 0.5, 8, 8})
	d, _ := New(Config{Kernel: Gaussian, Bandwidth: 1, Common: method.Common{Scale: scale.None}})
	_ = d.Fit(context.Background(), train)
	s, _ := d.Score(nil, query)
	fmt.Printf("near %.4f far %.4f\n", s[0], s[1])
	// Output: near 2.0879 far 52.2231
}

// TestScaleWidth checks the scale rule against its formula: on the 4×2
// matrix below every entry has mean 2.5 and population variance 1.25 (the
// entries 1…4 twice), so h = √(d·Var/2) = √(2·1.25/2) = √1.25. Scaling
// the data by 10 must scale h by 10.
func TestScaleWidth(t *testing.T) {
	X := mat.NewDense(4, 2, []float64{1, 4, 2, 3, 3, 2, 4, 1})
	for _, f := range []float64{1, 10} {
		Y := mat.DenseCopyOf(X)
		Y.Scale(f, Y)
		d, _ := New(Config{Rule: ScaleWidth, Common: method.Common{Scale: scale.None}})
		if err := d.Fit(context.Background(), Y); err != nil {
			t.Fatal(err)
		}
		if want := f * math.Sqrt(1.25); math.Abs(d.Bandwidth()-want) > 1e-12*want {
			t.Errorf("factor %g: bandwidth %.15g, want %.15g", f, d.Bandwidth(), want)
		}
	}
}

// gaussianLogSum at bandwidths whose reciprocal overflows (h below
// 1/MaxFloat64) and at ordinary ones: n coincident points give log n, and
// two points r² = 2h² apart give log(1 + e⁻¹), the closed forms.
func TestGaussianLogSumExtremeBandwidth(t *testing.T) {
	for _, h := range []float64{5e-310, 1e-200, 0.3, 1e200} {
		if got := gaussianLogSum([]float64{0, 0, 0}, 0, h); math.Abs(got-math.Log(3)) > 1e-15 {
			t.Errorf("h=%g: three coincident points give %v, want log 3", h, got)
		}
		if h < 1e-160 || h > 1e150 {
			continue // 2h² is not representable
		}
		r2 := 2 * h * h
		// squared distances 0 and r2 from the query, the smallest 0
		got := gaussianLogSum([]float64{0, r2}, 0, h)
		if want := math.Log(1 + math.Exp(-1)); math.Abs(got-want) > 1e-14 {
			t.Errorf("h=%g: %v, want log(1+e⁻¹) = %v", h, got, want)
		}
	}
}

// With threshold_rows = m < n the threshold is the quantile of the scores
// of the m evenly spaced rows ⌊i·n/m⌋, each scored against all n rows, as
// Score on those rows gives them; at m ≥ n every row counts.
func TestThresholdRows(t *testing.T) {
	const n, m = 300, 70
	X := testmat.NormalSeed(n, 3, 7)
	capped, err := New(Config{ThresholdRows: m})
	if err != nil {
		t.Fatal(err)
	}
	if err := capped.Fit(context.Background(), X); err != nil {
		t.Fatal(err)
	}
	sub := mat.NewDense(m, 3, nil)
	for i := 0; i < m; i++ {
		sub.SetRow(i, mat.Row(nil, i*n/m, X))
	}
	s, err := capped.Score(nil, sub)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := capped.Threshold(), method.ThresholdFromScores(s, 0.1); got != want {
		t.Errorf("threshold_rows=%d: threshold %v, want the quantile of the %d rows' scores %v", m, got, m, want)
	}
	all, _ := New(Config{ThresholdRows: -1})
	big, _ := New(Config{ThresholdRows: n})
	all.Fit(context.Background(), X)
	big.Fit(context.Background(), X)
	if all.Threshold() != big.Threshold() {
		t.Errorf("threshold_rows=-1 gives %v, threshold_rows=n %v: both score every row", all.Threshold(), big.Threshold())
	}
}

// TestThresholdFromTooFewRowsWarns: with threshold_rows=1 the threshold was
// one row's score and, with no warning, scoring the 100 training rows
// flagged 54 of them at contamination 0.1. Fewer than 1/contamination
// scored rows cannot hold one expected anomaly: the fit warns. At 10 rows
// (1/0.1) it does not.
func TestThresholdFromTooFewRowsWarns(t *testing.T) {
	X := testmat.NormalSeed(100, 3, 1)
	for _, c := range []struct {
		rows string
		warn bool
	}{{"1", true}, {"9", true}, {"10", false}, {"-1", false}} {
		d, err := detector.New("kde", map[string]string{"threshold_rows": c.rows, "contamination": "0.1"})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Fit(context.Background(), X); err != nil {
			t.Fatal(err)
		}
		w := d.(interface{ Warning() string }).Warning()
		if got := strings.Contains(w, "too few to hold one expected anomaly"); got != c.warn {
			t.Errorf("threshold_rows=%s: warning %q, want one: %v", c.rows, w, c.warn)
		}
	}
}

// TestScaleScottDefault pins the default bandwidth rule, scale_scott: on
// the 4×2 matrix of TestScaleWidth (Var = 1.25 over all entries, n = 4,
// d = 2) h = √(d·Var/2)·n^(−1/(d+4)) = √1.25·4^(−1/6), the scale width
// times Scott's factor; ×10 data give ×10 h, the rows twice over (n = 8)
// give h × 2^(−1/6).
func TestScaleScottDefault(t *testing.T) {
	X := mat.NewDense(4, 2, []float64{1, 4, 2, 3, 3, 2, 4, 1})
	X10 := mat.DenseCopyOf(X)
	X10.Scale(10, X10)
	X2 := mat.NewDense(8, 2, nil)
	X2.Stack(X, X)
	base := math.Sqrt(1.25) * math.Pow(4, -1.0/6)
	for _, tc := range []struct {
		name string
		X    mat.Matrix
		want float64
	}{{"4×2", X, base}, {"4×2 ×10", X10, 10 * base}, {"8×2", X2, base * math.Pow(2, -1.0/6)}} {
		d, err := New(Config{Common: method.Common{Scale: scale.None}})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Fit(context.Background(), tc.X); err != nil {
			t.Fatal(err)
		}
		if math.Abs(d.Bandwidth()-tc.want) > 1e-14*tc.want {
			t.Errorf("%s: bandwidth %.17g, want %.17g", tc.name, d.Bandwidth(), tc.want)
		}
	}
}

// TestCrossBlockArithmetic: the squared distances of a block of query
// rows come out the same, bit for bit, whichever way crossBlock takes the
// product (the tile of training rows transposed when the block has more
// rows than columns, the block transposed otherwise) and whatever the
// tiling, and equal the reference: MulNN of the block with all the
// training rows transposed (the exact scorer's product before it read
// the rows in place), then fastmath.SqDist. 1,000 training rows are
// several tiles and a partial one.
func TestCrossBlockArithmetic(t *testing.T) {
	const n = 1000
	for _, d := range []int{3, 10, 70} {
		x := testmat.NormalSeed(n, d, uint64(d))
		sqn, _ := sqNorms(context.Background(), x)
		xt := mat.DenseCopyOf(x.T())
		for _, br := range []int{4, 16, 64} {
			cb := newCrossBlock(br, n, d)
			for i := range br {
				copy(cb.row(i), x.RawRowView((7*i)%n))
			}
			rows := br - 1 // a block shorter than its buffers
			cb.sqDists(context.Background(), x, sqn, rows)
			want := make([]float64, rows*n)
			fastmath.MulNN(want, n, cb.q, d, xt.RawMatrix().Data, n, rows, n, d)
			for i := range rows {
				qn := fastmath.SumSquares(cb.row(i))
				mn := math.Inf(1)
				for j, v := range cb.dists(i) {
					w := fastmath.SqDist(qn, sqn[j], want[i*n+j])
					mn = math.Min(mn, w)
					if v != w {
						t.Fatalf("d=%d br=%d (wide %v): row %d to %d: %v, want %v", d, br, d > br, i, j, v, w)
					}
				}
				if cb.min[i] != mn {
					t.Errorf("d=%d br=%d: row %d's minimum %v, want %v", d, br, i, cb.min[i], mn)
				}
				if cb.min[i] != 0 {
					t.Errorf("d=%d br=%d: row %d is a training row; its smallest squared distance is %v, want 0", d, br, i, cb.min[i])
				}
			}
		}
	}
}

// TestTreeStateOrder: the tree reorders the model's rows in place, and
// the saved state puts them back: a tree model saves the rows an exact
// model saves, in the training rows' order.
func TestTreeStateOrder(t *testing.T) {
	X := testmat.NormalSeed(500, 3, 4)
	exact := fittedState(t, Config{Algorithm: Exact}, X)
	if tree := fittedState(t, Config{Algorithm: Tree, LeafSize: 5}, X); !bytes.Equal(exact, tree) {
		t.Error("the tree model's state differs from the exact model's")
	}
}

// fittedState fits a detector of cfg on X and returns its model's state.
func fittedState(tb testing.TB, cfg Config, X mat.Matrix) []byte {
	tb.Helper()
	k, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return detectortest.FittedState(tb, k, X)
}
