package kernel

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kernelad/anomaly/internal/testmat"
	"gonum.org/v1/gonum/mat"
)

// plain is a kernel the package does not know, so it takes the generic path.
type plain struct{}

func (plain) Eval(x, y []float64) float64 { return 1 / (1 + SqDist(x, y)) }

// testKernels is the shared table: every kernel of the package (and one
// unknown to it) with parameters that keep values of order one on [0,1)^d.
var testKernels = []struct {
	name string
	k    Kernel
	psd  bool
}{
	{"rbf", RBF{Gamma: 0.7}, true},
	{"rbf-ptr", &RBF{Gamma: 0.7}, true},
	{"laplacian", Laplacian{Gamma: 0.3}, true},
	{"poly3", Polynomial{Gamma: 0.5, Coef0: 1, Degree: 3}, true},
	{"poly2-neg", Polynomial{Gamma: 0.2, Coef0: -0.5, Degree: 2}, false},
	{"linear", Linear{}, true},
	{"matern0.5", Matern{Nu: 0.5, Length: 1}, true},
	{"matern1.5", Matern{Nu: 1.5, Length: 0.8}, true},
	{"matern2.5", Matern{Nu: 2.5, Length: 1.2}, true},
	{"inverse-quadratic", plain{}, true},
}

// close reports |got − want| ≤ 1e-12·max(1, |want|): the brief's 1e-12,
// relative for the polynomial kernel whose values exceed one.
func close(got, want float64) bool {
	return math.Abs(got-want) <= 1e-12*math.Max(1, math.Abs(want))
}

// inputs returns the same data as dense, as a non-raw mat.Matrix (the
// transpose of a transpose) and as CSR.
func inputs(x *mat.Dense) map[string]mat.Matrix {
	return map[string]mat.Matrix{
		"dense":  x,
		"matrix": mat.Transpose{Matrix: mat.DenseCopyOf(x.T())},
		"csr":    testmat.CSR(x),
	}
}

func TestGramMatchesEval(t *testing.T) {
	// 131 rows: two full 64-row blocks and a partial one.
	x := testmat.Uniform(131, 7, 0.4, rand.NewPCG(1, 1))
	for _, tc := range testKernels {
		for kind, in := range inputs(x) {
			var g mat.SymDense
			Gram(&g, tc.k, in)
			n := g.SymmetricDim()
			if n != 131 {
				t.Fatalf("%s/%s: dim %d", tc.name, kind, n)
			}
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					want := tc.k.Eval(x.RawRowView(i), x.RawRowView(j))
					if got := g.At(i, j); !close(got, want) {
						t.Fatalf("%s/%s: K[%d,%d] = %v, Eval %v", tc.name, kind, i, j, got, want)
					}
				}
			}
		}
	}
}

func TestCrossMatchesEval(t *testing.T) {
	x := testmat.Uniform(97, 5, 0.5, rand.NewPCG(2, 1))
	y := testmat.Uniform(70, 5, 0.3, rand.NewPCG(3, 1))
	for _, tc := range testKernels {
		for kx, xin := range inputs(x) {
			for ky, yin := range inputs(y) {
				var c mat.Dense
				Cross(&c, tc.k, xin, yin)
				for i := 0; i < 97; i++ {
					for j := 0; j < 70; j++ {
						want := tc.k.Eval(x.RawRowView(i), y.RawRowView(j))
						if got := c.At(i, j); !close(got, want) {
							t.Fatalf("%s/%s×%s: K[%d,%d] = %v, Eval %v", tc.name, kx, ky, i, j, got, want)
						}
					}
				}
			}
		}
	}
}

func TestRowMatchesEval(t *testing.T) {
	x := testmat.Uniform(3, 6, 0.3, rand.NewPCG(4, 1))
	y := testmat.Uniform(50, 6, 0.5, rand.NewPCG(5, 1))
	for _, tc := range testKernels {
		for ky, yin := range inputs(y) {
			for i := 0; i < 3; i++ {
				dst := make([]float64, 50)
				Row(dst, tc.k, x.RawRowView(i), yin)
				for j, got := range dst {
					if want := tc.k.Eval(x.RawRowView(i), y.RawRowView(j)); !close(got, want) {
						t.Fatalf("%s/%s: row %d col %d = %v, Eval %v", tc.name, ky, i, j, got, want)
					}
				}
			}
		}
	}
}

func TestGramIntoView(t *testing.T) {
	// dst may be a strided view; Cross writes only inside it.
	x := testmat.Uniform(70, 4, 0, rand.NewPCG(6, 1))
	big := mat.NewDense(80, 90, nil)
	for i := range 80 {
		for j := range 90 {
			big.Set(i, j, -1)
		}
	}
	v := big.Slice(5, 75, 10, 80).(*mat.Dense)
	Cross(v, RBF{Gamma: 1}, x, x)
	for i := range 80 {
		for j := range 90 {
			in := i >= 5 && i < 75 && j >= 10 && j < 80
			got := big.At(i, j)
			if !in && got != -1 {
				t.Fatalf("wrote outside the view at %d,%d", i, j)
			}
			if in && !close(got, RBF{Gamma: 1}.Eval(x.RawRowView(i-5), x.RawRowView(j-10))) {
				t.Fatalf("view %d,%d = %v", i, j, got)
			}
		}
	}
}

func TestGramPSD(t *testing.T) {
	x := testmat.Uniform(40, 5, 0.2, rand.NewPCG(7, 1))
	for _, tc := range testKernels {
		if !tc.psd {
			continue
		}
		var g mat.SymDense
		Gram(&g, tc.k, x)
		var es mat.EigenSym
		if !es.Factorize(&g, false) {
			t.Fatalf("%s: eigendecomposition failed", tc.name)
		}
		if lo := es.Values(nil)[0]; lo < -1e-10 {
			t.Errorf("%s: smallest eigenvalue %v < −1e-10", tc.name, lo)
		}
	}
}

func TestGramRBFLargeOffset(t *testing.T) {
	// Data far from the origin: the centring of the BLAS path keeps
	// ‖x‖²+‖y‖²−2xᵀy accurate (without it the error is ~γ·ε·‖x‖² ≈ 1e-4).
	x := testmat.Uniform(30, 3, 0, rand.NewPCG(8, 1))
	for i := 0; i < 30; i++ {
		for j := 0; j < 3; j++ {
			x.Set(i, j, 1e6+x.At(i, j))
		}
	}
	k := RBF{Gamma: 2}
	var g mat.SymDense
	Gram(&g, k, x)
	for i := 0; i < 30; i++ {
		for j := 0; j < 30; j++ {
			if want := k.Eval(x.RawRowView(i), x.RawRowView(j)); math.Abs(g.At(i, j)-want) > 1e-9 {
				t.Fatalf("K[%d,%d] = %v, Eval %v", i, j, g.At(i, j), want)
			}
		}
	}
}

func mustPanic(t *testing.T, what, prefix string, f func()) {
	t.Helper()
	defer func() {
		r := recover()
		if r == nil {
			t.Fatalf("%s: no panic", what)
		}
		if s := fmt.Sprint(r); !strings.HasPrefix(s, prefix) {
			t.Fatalf("%s: panic %q, want prefix %q", what, s, prefix)
		}
	}()
	f()
}

func TestSizePanics(t *testing.T) {
	x := testmat.Uniform(5, 2, 0, rand.NewPCG(9, 1))
	mustPanic(t, "Gram dst", "kernel: Gram dst is 4×4", func() { Gram(mat.NewSymDense(4, nil), RBF{1}, x) })
	mustPanic(t, "Cross dst", "kernel: Cross dst is 5×4", func() { Cross(mat.NewDense(5, 4, nil), RBF{1}, x, x) })
	mustPanic(t, "Cross cols", "kernel: Cross of 2-column X", func() { Cross(&mat.Dense{}, RBF{1}, x, mat.NewDense(3, 3, nil)) })
	mustPanic(t, "Row dst", "kernel: Row dst", func() { Row(make([]float64, 4), RBF{1}, []float64{1, 2}, x) })
	mustPanic(t, "Row x", "kernel: Row x", func() { Row(make([]float64, 5), RBF{1}, []float64{1}, x) })
	mustPanic(t, "Matern nu", "kernel: Matern", func() { Matern{Nu: 1, Length: 1}.Eval([]float64{0}, []float64{1}) })
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name          string
		gamma, coef0  float64
		degree        int
		want          Kernel
		errSubstrings string
	}{
		{"rbf", 0.5, 0, 0, RBF{0.5}, ""},
		{" Gaussian ", 2, 9, 9, RBF{2}, ""},
		{"laplacian", 0.1, 0, 0, Laplacian{0.1}, ""},
		{"poly", 1, 0.5, 3, Polynomial{1, 0.5, 3}, ""},
		{"POLYNOMIAL", 0.25, -1, 2, Polynomial{0.25, -1, 2}, ""},
		{"linear", 0, 0, 0, Linear{}, ""},
		{"rbf", 0, 0, 0, nil, "rbf: gamma must be a finite number > 0, got 0"},
		{"laplacian", -1, 0, 0, nil, "laplacian: gamma must be"},
		{"rbf", math.NaN(), 0, 0, nil, "gamma must be"},
		{"rbf", math.Inf(1), 0, 0, nil, "gamma must be"},
		{"poly", 1, 0, 0, nil, "poly: degree must be ≥ 1, got 0"},
		{"poly", 1, math.Inf(-1), 2, nil, "coef0 must be finite"},
		{"sigmoid", 1, 0, 0, nil, `unknown kernel "sigmoid" (want rbf, gaussian, laplacian, poly, polynomial or linear)`},
		{"", 1, 0, 0, nil, `unknown kernel ""`},
	} {
		k, err := Parse(tc.name, tc.gamma, tc.coef0, tc.degree)
		if tc.errSubstrings != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errSubstrings) || !strings.HasPrefix(err.Error(), "kernel: ") {
				t.Errorf("Parse(%q, %v, %v, %d): error %v, want %q", tc.name, tc.gamma, tc.coef0, tc.degree, err, tc.errSubstrings)
			}
			continue
		}
		if err != nil || k != tc.want {
			t.Errorf("Parse(%q, %v, %v, %d) = %v, %v; want %v", tc.name, tc.gamma, tc.coef0, tc.degree, k, err, tc.want)
		}
	}
}

// TestSpectral checks Bochner's identity κ(δ) = E[cos(ωᵀδ)] by Monte Carlo
// for every shift-invariant kernel: the sample mean of cos(ωᵀδ) over N draws
// must lie within 4 standard errors of κ(δ).
func TestSpectral(t *testing.T) {
	const N = 20000
	deltas := [][]float64{{0.1, -0.2, 0.05}, {0.5, 0.3, -0.4}, {1, 1, 1}, {0, 2, 0}}
	for _, k := range []ShiftInvariant{RBF{0.8}, Laplacian{0.6}, Matern{0.5, 1}, Matern{1.5, 0.7}, Matern{2.5, 1.5}} {
		rng := rand.New(rand.NewPCG(42, 0))
		w := make([][]float64, N)
		for i := range w {
			w[i] = make([]float64, 3)
			k.SampleFrequency(w[i], rng)
		}
		for _, d := range deltas {
			var s, s2 float64
			for _, wi := range w {
				c := math.Cos(Dot(wi, d))
				s += c
				s2 += c * c
			}
			mean := s / N
			se := math.Sqrt((s2/N - mean*mean) / N)
			want := k.Eval(d, []float64{0, 0, 0})
			if math.Abs(mean-want) > 4*se {
				t.Errorf("%v δ=%v: E cos = %.4f ± %.4f, κ = %.4f", k, d, mean, se, want)
			}
		}
	}
}

// TestSampleRadius checks that SampleRadius has the distribution of ‖ω‖ for
// ω from SampleFrequency: the means of ‖ω‖² agree within 4 standard errors.
func TestSampleRadius(t *testing.T) {
	const N, d = 20000, 4
	for _, k := range []Isotropic{RBF{0.8}, Matern{1.5, 0.7}, Matern{2.5, 1.5}} {
		rng := rand.New(rand.NewPCG(7, 0))
		w := make([]float64, d)
		var a, b []float64
		for range N {
			k.SampleFrequency(w, rng)
			a = append(a, math.Sqrt(Dot(w, w)))
			b = append(b, k.SampleRadius(d, rng))
		}
		ma, sa := meanSE(a)
		mb, sb := meanSE(b)
		if math.Abs(ma-mb) > 4*math.Hypot(sa, sb) {
			t.Errorf("%v: E‖ω‖ %v±%v vs radius %v±%v", k, ma, sa, mb, sb)
		}
	}
}

func meanSE(x []float64) (mean, se float64) {
	var s, s2 float64
	for _, v := range x {
		s += v
		s2 += v * v
	}
	n := float64(len(x))
	mean = s / n
	return mean, math.Sqrt((s2/n - mean*mean) / n)
}

func TestSameSeedSameFrequencies(t *testing.T) {
	a, b := make([]float64, 5), make([]float64, 5)
	Laplacian{1}.SampleFrequency(a, rand.New(rand.NewPCG(3, 4)))
	Laplacian{1}.SampleFrequency(b, rand.New(rand.NewPCG(3, 4)))
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("same seed, different frequencies")
		}
	}
}

// CheckRange against hand-made cases: magnitudes and spreads past
// 1e154/√d overflow squared distances, data spreading less than 1e-150
// everywhere underflows them, and constant data is fine.
func TestCheckRange(t *testing.T) {
	for _, c := range []struct {
		name  string
		data  []float64 // 3 rows × 2 columns
		col   int       // one-based column named, 0 = no error
		under bool
	}{
		{"ordinary", []float64{1, 2, 3, 4, 5, 6}, 0, false},
		{"constant", []float64{7, 7, 7, 7, 7, 7}, 0, false},
		{"huge column 2", []float64{1, 1e300, 2, 2e300, 3, 3e300}, 2, false},
		{"spread overflows", []float64{-1e200, 0, 1e200, 0, 0, 0}, 1, false},
		{"tiny everywhere", []float64{1e-300, 2e-300, 3e-300, 1e-301, 0, 0}, 1, true},
		{"tiny but one column ordinary", []float64{1e-300, 1, 2e-300, 2, 0, 3}, 0, false},
	} {
		err := CheckRange(mat.NewDense(3, 2, c.data))
		var re *RangeError
		switch {
		case c.col == 0 && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.col != 0 && (!errors.As(err, &re) || re.Col+1 != c.col || re.Underflow != c.under):
			t.Errorf("%s: got %v, want a RangeError naming column %d (underflow %v)", c.name, err, c.col, c.under)
		}
	}
}

// GramContext stops when its context is cancelled: it returns ctx.Err()
// long before the full matrix would be done and leaves no worker running
// (the goroutine count is back to where it was).
func TestGramContextCancel(t *testing.T) {
	X := testmat.Normal(6000, 30, rand.NewPCG(5, 5))
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, 1)
	go func() { time.Sleep(20 * time.Millisecond); cancel(); done <- struct{}{} }()
	var K mat.SymDense
	err := GramContext(ctx, &K, Laplacian{Gamma: 0.1}, X) // the pairwise path: seconds of work
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("GramContext after cancel: %v, want context.Canceled", err)
	}
	<-done
	// Exiting goroutines leave the count asynchronously: give the helper
	// above a moment; a worker still computing would stay.
	n := runtime.NumGoroutine()
	for i := 0; i < 200 && n > before; i++ {
		time.Sleep(5 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	if n > before {
		t.Errorf("%d goroutines after GramContext returned, %d before", n, before)
	}
}
