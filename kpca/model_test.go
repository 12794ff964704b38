package kpca

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/detectortest"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/randfeat"
)

// TestCrossRowsEqualsCross: the cross kernel against prepared rows equals
// kernel.Cross against the same rows bit for bit, for every kernel kpca
// offers, below and from crossTransposed rows (gonum's product, then
// fastmath's), with more than 64 features (gonum's product then sums in
// blocks of 64) and in blocks of rows of any size: each row's values are
// the same sums whatever its block. Old exact models (those of
// detector/all's TestModelsBeforeColumnNames) score as kernel.Cross made
// them score.
func TestCrossRowsEqualsCross(t *testing.T) {
	kerns := []kernel.Kernel{kernel.RBF{Gamma: 0.3}, kernel.Linear{}, kernel.Polynomial{Gamma: 0.2, Coef0: 1, Degree: 3}, kernel.Laplacian{Gamma: 0.1}}
	for _, n := range []int{100, crossTransposed + 76} {
		for _, d := range []int{3, 80} {
			Y := testmat.NormalSeed(n, d, uint64(n+d))
			X := testmat.NormalSeed(150, d, uint64(n*d))
			for _, k := range kerns {
				var want mat.Dense
				kernel.Cross(&want, k, X, Y)
				c := newCrossRows(k, Y)
				var cs crossScratch
				for _, rows := range []int{150, 64, 7, 1} {
					got := make([]float64, 150*n)
					for lo := 0; lo < 150; lo += rows {
						hi := min(150, lo+rows)
						c.into(got[lo*n:hi*n], X.Slice(lo, hi, 0, d).(*mat.Dense), &cs)
					}
					for i := 0; i < 150; i++ {
						for j := 0; j < n; j++ {
							if g, w := got[i*n+j], want.At(i, j); g != w && !(math.IsNaN(g) && math.IsNaN(w)) {
								t.Fatalf("%v, n=%d, d=%d, blocks of %d rows: K(%d, %d) = %v, kernel.Cross %v", k, n, d, rows, i, j, g, w)
							}
						}
					}
				}
			}
		}
	}
}

// TestFeaturesEqualTransform: Score's Nyström features (the cross kernel
// against the prepared landmarks, then K_mm^(−1/2)) equal randfeat's
// Nystrom.Transform bit for bit.
func TestFeaturesEqualTransform(t *testing.T) {
	L, X := testmat.NormalSeed(60, 5, 1), testmat.NormalSeed(300, 5, 2)
	ny, err := randfeat.NewNystrom(kernel.RBF{Gamma: 0.2}, L)
	if err != nil {
		t.Fatal(err)
	}
	var want mat.Dense
	ny.Transform(&want, X)
	m := &model{kern: ny.K}
	m.setNystrom(ny, make([]float64, 60), mat.NewDense(60, 1, nil))
	kx, z := make([]float64, 300*60), make([]float64, 300*60)
	m.cross.into(kx, X, &crossScratch{})
	m.features(z, kx, 300)
	if !mat.Equal(mat.NewDense(300, 60, z), &want) {
		t.Error("the features differ from Nystrom.Transform's")
	}
}

// TestScoreChunked: Base hands Score the rows a chunk at a time, and a
// file is scored a chunk at a time (detector.ScoreSource). Scores of
// chunks of 1, 7 and 100 rows equal those of the whole matrix bit for
// bit, for the exact method (training rows below and from
// crossTransposed) and Nyström, at the default scale stage and with
// scale=none (where Base passes the whole matrix on in one piece).
func TestScoreChunked(t *testing.T) {
	if testing.Short() {
		t.Skip("fits on 1,100 rows")
	}
	Y := testmat.NormalSeed(301, 6, 21)
	for _, c := range []struct {
		rows   int
		params map[string]string
	}{
		{200, nil},
		{crossTransposed + 76, map[string]string{"components": "8"}},
		{200, map[string]string{"scale": "none", "kernel": "poly", "components": "4"}},
		{600, map[string]string{"method": "nystrom", "landmarks": "70"}},
		{300, map[string]string{"method": "nystrom", "scale": "none", "kernel": "laplacian"}},
	} {
		d, err := detector.New("kpca", c.params)
		if err != nil {
			t.Fatal(err)
		}
		want := testmat.FitScore(t, d, testmat.NormalSeed(c.rows, 6, 22), Y)
		for _, size := range []int{1, 7, 100} {
			for lo := 0; lo < 301; lo += size {
				hi := min(301, lo+size)
				got, err := d.Score(nil, Y.Slice(lo, hi, 0, 6))
				if err != nil {
					t.Fatal(err)
				}
				for i, v := range got {
					if v != want[lo+i] {
						t.Fatalf("%v on %d rows, chunks of %d: row %d scores %v, %v in the whole matrix", c.params, c.rows, size, lo+i, v, want[lo+i])
					}
				}
			}
		}
	}
}

// TestFitSourceEqualsFit: a fit from a Source (a file read a chunk at a
// time) gives the model a fit of the same rows in one matrix gives: the
// same saved bytes, for both methods.
func TestFitSourceEqualsFit(t *testing.T) {
	X := testmat.NormalSeed(700, 5, 31)
	for _, params := range []map[string]string{{"components": "6"}, {"method": "nystrom", "landmarks": "50"}} {
		a, _ := detector.New("kpca", params)
		b, _ := detector.New("kpca", params)
		if !detectortest.FitsAlike(t, a, b, X, testmat.RowSource{X: X}) {
			t.Errorf("%v: the model fitted from a source differs from the one fitted in memory", params)
		}
	}
}

// TestCancelledRefitKeepsModel is issue 31's first case: a refit of kpca
// cancelled in the middle left a detector whose Predict and Save
// panicked (the fit had cleared its state before its first look at the
// context). Here the refit is cancelled from its own progress callback,
// at every stage it reports, for both methods: it returns
// context.Canceled, and the detector keeps the model it had, with the
// same saved bytes, threshold and scores.
func TestCancelledRefitKeepsModel(t *testing.T) {
	X, Q := testmat.NormalSeed(500, 6, 41), testmat.NormalSeed(50, 6, 42)
	big := testmat.NormalSeed(1000, 6, 43)
	// Lanczos, the dense route (4q > n) and Nyström.
	for _, params := range []map[string]string{{"components": "20"}, {"components": "300"}, {"method": "nystrom", "landmarks": "400"}} {
		// The stages a refit reports.
		var stages []string
		seen := map[string]bool{}
		probe, err := detector.New("kpca", params, detector.Options{Progress: func(stage string, _, _ int) {
			if !seen[stage] {
				seen[stage] = true
				stages = append(stages, stage)
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		if err := probe.Fit(context.Background(), big); err != nil {
			t.Fatal(err)
		}
		for _, stage := range stages {
			ctx, cancel := context.WithCancel(context.Background())
			armed := false
			d, _ := detector.New("kpca", params, detector.Options{Progress: func(s string, _, _ int) {
				if armed && s == stage {
					cancel()
				}
			}})
			if err := d.Fit(context.Background(), X); err != nil {
				t.Fatal(err)
			}
			armed = true
			var before bytes.Buffer
			if err := detector.Save(&before, d); err != nil {
				t.Fatal(err)
			}
			thr := d.Threshold()
			want, _ := d.Score(nil, Q)
			err := d.Fit(ctx, big)
			cancel()
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%v: refit cancelled at stage %q returned %v", params, stage, err)
			}
			var after bytes.Buffer
			if err := detector.Save(&after, d); err != nil {
				t.Fatalf("%v, cancelled at %q: Save: %v", params, stage, err)
			}
			if !bytes.Equal(before.Bytes(), after.Bytes()) || d.Threshold() != thr {
				t.Errorf("%v, cancelled at %q: the model changed", params, stage)
			}
			if _, err := detector.Predict(context.Background(), nil, d, Q); err != nil {
				t.Fatalf("%v, cancelled at %q: Predict: %v", params, stage, err)
			}
			got, _ := d.Score(nil, Q)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%v, cancelled at %q: row %d scores %v, %v before", params, stage, i, got[i], want[i])
				}
			}
		}
		t.Logf("%v: cancelled at each of the stages %v", params, stages)
	}
}

// TestDecodeWrappedSizes: sizes whose products wrap around (a column
// count of 2⁶² with four values: 4·2⁶² is 0 in int arithmetic, the length
// of an empty array) are refused, never used: the model's state is input.
func TestDecodeWrappedSizes(t *testing.T) {
	const huge = 1 << 62
	for _, c := range []struct {
		name   string
		method Method
		s      state
	}{
		{"exact rows", Exact, state{Gamma: 1, D: huge, Vals: []float64{1}, N: 4, X: nil, RowMean: make([]float64, 4), Proj: make([]float64, 4)}},
		{"exact projection", Exact, state{Gamma: 1, D: 1, Vals: []float64{1, 1, 1, 1}, N: huge, X: make([]float64, 4), RowMean: make([]float64, 4), Proj: make([]float64, 16)}},
		{"nystrom landmarks", Nystrom, state{Gamma: 1, D: huge, Vals: []float64{1}, Landmarks: make([]float64, 4), ZMean: nil, Proj: nil}},
		{"nystrom map", Nystrom, state{Gamma: 1, D: 1, Vals: []float64{1}, Landmarks: make([]float64, 2), ZMean: make([]float64, 2), Proj: make([]float64, 2), NystromNorm: make([]float64, 4), NystromRank: huge}},
	} {
		p, err := New(Config{Method: c.method, Components: 1})
		if err != nil {
			t.Fatal(err)
		}
		b, err := method.EncodeState("kpca", c.s)
		if err != nil {
			t.Fatal(err)
		}
		for _, dim := range []int{c.s.D, 1, 4} {
			if _, err := p.decode(b, dim); err == nil {
				t.Errorf("%s, dim %d: decoded", c.name, dim)
			}
		}
	}
}

// FuzzDecodeKPCA feeds mutated model states through decode (for the
// exact method with the rbf and the linear kernel, and for Nyström) and,
// when one decodes, scores rows with it: a crafted state must give an
// error, never a panic, in decode or in Score. The corpus starts from the
// states of real fits.
func FuzzDecodeKPCA(f *testing.F) {
	X := testmat.NormalSeed(30, 3, 51)
	configs := []Config{{Components: 3}, {Components: 2, Kernel: kernel.Spec{Kind: "linear"}}, {Components: 2, Method: Nystrom, Landmarks: 8}}
	dets := make([]*KPCA, len(configs))
	for i, cfg := range configs {
		p, err := New(cfg)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(detectortest.FittedState(f, p, X))
		dets[i] = p
	}
	Q := testmat.NormalSeed(5, 3, 52)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, p := range dets {
			m, err := p.decode(data, 3)
			if err != nil {
				continue
			}
			dst := make([]float64, 5)
			if err := m.Score(context.Background(), dst, Q); err != nil {
				t.Fatalf("Score of a decoded model: %v", err)
			}
		}
	})
}

// TestSeededRefitsAgree: with a seed, every fit draws the same landmarks
// (a fresh stream of the seed), so a refit on the same rows gives the
// same model, whatever fits came before it.
func TestSeededRefitsAgree(t *testing.T) {
	X := testmat.NormalSeed(300, 4, 61)
	p, _ := New(Config{Method: Nystrom, Landmarks: 30, Components: 3})
	var saved [2]bytes.Buffer
	for i := range saved {
		if err := p.Fit(context.Background(), X); err != nil {
			t.Fatal(err)
		}
		if err := detector.Save(&saved[i], p); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(saved[0].Bytes(), saved[1].Bytes()) {
		t.Error("two fits of one seeded detector on the same rows differ")
	}
	// A source the caller built is drawn from as it is.
	q, _ := New(Config{Method: Nystrom, Landmarks: 30, Components: 3, Src: rand.NewPCG(0, 0)})
	var a, b bytes.Buffer
	_ = q.Fit(context.Background(), X)
	_ = detector.Save(&a, q)
	_ = q.Fit(context.Background(), X)
	_ = detector.Save(&b, q)
	if bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("a caller's source gave two fits the same landmarks")
	}
}
