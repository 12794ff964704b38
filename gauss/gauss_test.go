package gauss

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/detectortest"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/scale"
)

// The nll score is ½(D² + d log 2π + log det Σ): with a fixed shrinkage of
// 1 on rows whose per-column variance is 1 after scaling (Σ = μI, μ = 1),
// log det Σ = 0 and −log density of the mean is d/2·log 2π.
func TestNLL(t *testing.T) {
	X := mat.NewDense(4, 2, []float64{1, 1, -1, -1, 1, -1, -1, 1}) // mean 0, variance 1 per column
	g, _ := New(Config{Score: NLL, Shrinkage: 1, Common: method.Common{Scale: scale.None}})
	if err := g.Fit(context.Background(), X); err != nil {
		t.Fatal(err)
	}
	s, _ := g.Score(nil, mat.NewDense(2, 2, []float64{0, 0, 3, 4}))
	want0 := math.Log(2 * math.Pi)
	if math.Abs(s[0]-want0) > 1e-12 || math.Abs(s[1]-(want0+12.5)) > 1e-12 {
		t.Errorf("nll %v, want %v and %v", s, want0, want0+12.5)
	}
}

// TestConformance runs the shared suite at the defaults. The AUC floor is
// the AUC-ROC of a run of this test (2026-11-25: 0.9967 on the suite's
// 200×4 Gaussian mixture) less about 0.05 (rounded down to 0.94). The method is deterministic; its fit
// reads the rows in passes of chunks and hears ctx between them.
func TestConformance(t *testing.T) {
	detectortest.Run(t, "gauss", nil, detectortest.Options{
		AUCFloor: 0.94,
		Config:   func(d detector.Detector) any { return d.(*Gauss).cfg },
		// A fit of 500,000 × 50 rows: the scale stage's pass, two passes
		// for the moments and the threshold's scores, each a chunk of rows
		// at a time with ctx checked between chunks (about a second without
		// -race on 2 cores).
		Cancel: detectortest.Cancel{Rows: 500000, Cols: 50},
	})
}

func Example() {
	// Rows around the origin; one query near them, one far away.
	X := mat.NewDense(6, 2, []float64{0, 0, 1, 0, 0, 1, 1, 1, 0.5, 0.2, 0.3, 0.8})
	g, _ := New(Config{})
	_ = g.Fit(context.Background(), X)
	s, _ := g.Score(nil, mat.NewDense(2, 2, []float64{0.5, 0.5, 5, 5}))
	fmt.Println("far point more anomalous:", s[1] > s[0])
	// Output: far point more anomalous: true
}

// With more columns than rows the covariance is kept in its low-rank form
// (Woodbury): the scores equal those of the explicit d × d covariance
// (1 − ρ)S + ρμI at the same ρ to 1e-9 relative, for both scores, and a
// saved model reloads to identical scores.
func TestLowRankEqualsDense(t *testing.T) {
	const n, d = 30, 80
	X := mat.NewDense(n, d, nil)
	Q := mat.NewDense(5, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			X.Set(i, j, math.Sin(float64(3*i+7*j))+0.1*float64(j%5))
		}
	}
	for i := 0; i < 5; i++ {
		for j := 0; j < d; j++ {
			Q.Set(i, j, math.Cos(float64(5*i+j)))
		}
	}
	for _, score := range []string{Mahalanobis, NLL} {
		g, _ := New(Config{Score: score, Common: method.Common{Scale: scale.None}})
		if err := g.Fit(context.Background(), X); err != nil {
			t.Fatal(err)
		}
		fm, _ := g.Model()
		if fm.xc == nil {
			t.Fatal("d > n did not take the low-rank form")
		}
		got, _ := g.Score(nil, Q)
		// The explicit covariance at the fitted ρ.
		var xc mat.Dense
		xc.CloneFrom(X)
		for i := 0; i < n; i++ {
			for j := 0; j < d; j++ {
				xc.Set(i, j, X.At(i, j)-fm.mean[j])
			}
		}
		var S mat.SymDense
		S.SymOuterK(1/float64(n), xc.T())
		chol, _, err := shrink(&S, g.Shrinkage())
		if err != nil {
			t.Fatal(err)
		}
		dense := &model{nll: score == NLL, mean: fm.mean, chol: chol, logDet: chol.LogDet()}
		want := make([]float64, 5)
		if err := dense.Score(context.Background(), want, Q); err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-9*math.Max(1, math.Abs(want[i])) {
				t.Errorf("%s row %d: low-rank %.15g, dense %.15g", score, i, got[i], want[i])
			}
		}
		g2 := detectortest.Reload(t, g)
		again, _ := g2.Score(nil, Q)
		for i := range got {
			if again[i] != got[i] {
				t.Fatalf("%s row %d: %v after reload, %v before", score, i, again[i], got[i])
			}
		}
	}
}

// moments' one pass about the first chunk's mean gives the mean, the
// shrinkage ρ and the Cholesky factor of Σ of the textbook two passes
// (the mean, then the centred rows' outer products and norms, summed here
// in the test) to 1e-12, 1e-9 and 1e-11 relative: on rows in random
// order (one pass, stage "moments"; the threshold's scores of 10⁵ rows
// report nothing) and on the same rows sorted by their first column,
// where the first chunk's mean lies more than a standard deviation from
// the whole mean (a second pass, stage "covariance").
// The columns have means of 10³ and spreads from 10⁻³ to 10, so a
// shifted sum that lost the mean's digits would show.
func TestMomentsOnePass(t *testing.T) {
	const d = 5
	// Three chunks: sorted, the first holds the lowest third of the
	// first column, whose mean lies about 1.1 standard deviations below
	// the whole mean.
	n := 3 * method.ChunkRows(d)
	X := mat.NewDense(n, d, nil)
	rng := rand.New(rand.NewPCG(3, 4))
	spread := []float64{1e-3, 0.1, 1, 3, 10}
	for i := range n {
		z := rng.NormFloat64()
		for j := range d {
			X.Set(i, j, 1000+spread[j]*(0.6*z+0.8*rng.NormFloat64()))
		}
	}
	sorted := mat.DenseCopyOf(X)
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = slices.Clone(sorted.RawRowView(i))
	}
	slices.SortFunc(rows, func(a, b []float64) int { return cmp.Compare(a[0], b[0]) })
	for i, r := range rows {
		copy(sorted.RawRowView(i), r)
	}
	for _, tc := range []struct {
		name   string
		X      *mat.Dense
		stages []string
	}{
		{"random order", X, []string{"moments"}},
		{"sorted", sorted, []string{"moments", "covariance"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stages []string
			progress := func(stage string, _, _ int) {
				if !slices.Contains(stages, stage) {
					stages = append(stages, stage)
				}
			}
			g, _ := New(Config{Common: method.Common{Scale: scale.None, Progress: progress}})
			if err := g.Fit(context.Background(), tc.X); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(stages, tc.stages) {
				t.Errorf("stages %v, want %v", stages, tc.stages)
			}
			m, _ := g.Model()
			// The textbook two passes.
			mean := make([]float64, d)
			for i := range n {
				floats.Add(mean, tc.X.RawRowView(i))
			}
			floats.Scale(1/float64(n), mean)
			S := mat.NewSymDense(d, nil)
			var sum4 float64
			y := make([]float64, d)
			for i := range n {
				floats.SubTo(y, tc.X.RawRowView(i), mean)
				S.SymRankOne(S, 1/float64(n), mat.NewVecDense(d, y))
				q := floats.Dot(y, y)
				sum4 += q * q
			}
			rho := ledoitWolf(n, S, sum4)
			chol, _, err := shrink(S, rho)
			if err != nil {
				t.Fatal(err)
			}
			for j := range d {
				if e := math.Abs(m.mean[j]-mean[j]) / math.Abs(mean[j]); e > 1e-12 {
					t.Errorf("mean of column %d: %v, two passes %v (%.2g relative)", j+1, m.mean[j], mean[j], e)
				}
			}
			if e := math.Abs(m.rho-rho) / rho; e > 1e-9 {
				t.Errorf("ρ = %v, two passes %v (%.2g relative)", m.rho, rho, e)
			}
			got, want := m.chol.RawU(), chol.RawU()
			for i := range d {
				for j := i; j < d; j++ {
					if e := math.Abs(got.At(i, j)-want.At(i, j)) / want.At(j, j); e > 1e-11 {
						t.Errorf("U[%d,%d] = %v, two passes %v (%.2g of the diagonal)", i, j, got.At(i, j), want.At(i, j), e)
					}
				}
			}
		})
	}
}
