package expose

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"

	"github.com/kernelad/anomaly/detector/method"
)

// rowSource is a data set of n rows of d columns read as a
// detector.Source: row i is made on demand from a PCG seeded with i (or
// copied from X when it is set), so that a source of millions of rows
// holds none of them. It hands out chunks of at most cut rows, and counts
// the rows it hands out: by Scan and by ReadRows. With unknown rows its
// Dims says −1, as a text file's does before it was read to its end.
type rowSource struct {
	X             *mat.Dense
	n, d, cut     int
	unknown       bool
	scanned, read atomic.Int64
}

func (s *rowSource) Dims() (int, int) {
	if s.unknown {
		return -1, s.d
	}
	return s.n, s.d
}

func (s *rowSource) Sparse() bool { return false }

// row writes row i into dst.
func (s *rowSource) row(dst []float64, i int) {
	if s.X != nil {
		copy(dst, s.X.RawRowView(i))
		return
	}
	rng := rand.New(rand.NewPCG(uint64(i), 7))
	for j := range dst {
		dst[j] = rng.NormFloat64() + float64(j)
	}
}

func (s *rowSource) Scan(ctx context.Context, max int, fn func(lo int, X mat.Matrix) error) error {
	size := min(max, s.cut)
	buf := mat.NewDense(size, s.d, nil)
	for lo := 0; lo < s.n; lo += size {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+size, s.n)
		X := buf.Slice(0, hi-lo, 0, s.d).(*mat.Dense)
		for i := lo; i < hi; i++ {
			s.row(X.RawRowView(i-lo), i)
		}
		s.scanned.Add(int64(hi - lo))
		if err := fn(lo, X); err != nil {
			return err
		}
	}
	return nil
}

// indexSource is a rowSource that also reads rows by index.
type indexSource struct{ *rowSource }

func (s indexSource) ReadRows(_ context.Context, idx []int) (mat.Matrix, error) {
	X := mat.NewDense(len(idx), s.d, nil)
	for k, i := range idx {
		s.row(X.RawRowView(k), i)
	}
	s.read.Add(int64(len(idx)))
	return X, nil
}

var _ method.RowReader = indexSource{}

// TestSGDReadsSampleAndSteps (issue 32, must-show 3): an SGD fit of
// T = 1,000 steps from 2,000,000 rows that can be read by index reads the
// sample of max(T, 10,000) rows the stage, the width rule and the threshold
// are fitted on, and the T rows of its steps: at most 11,000 rows, none of
// them by a pass. From a source read in passes it reads the data once for
// the sample (a reservoir, which also counts the rows) and once more, up
// to the last row of its steps, for the T rows. The Nyström map (issue
// 35) draws its landmarks from the same sample, so it reads no more.
func TestSGDReadsSampleAndSteps(t *testing.T) {
	const n, d, T = 2_000_000, 10, 1000
	sample := max(T, DefaultStageRows)
	for _, tc := range []struct {
		seq bool
		fm  string // the Nyström map draws its landmarks from the sample
	}{{false, RFF}, {true, RFF}, {false, Nystrom}, {true, Nystrom}} {
		seq := tc.seq
		rs := &rowSource{n: n, d: d, cut: 4096, unknown: seq}
		var src detector.Source = indexSource{rs}
		if seq {
			src = rs
		}
		det := mustNew(t, Config{Solver: SGD, Iterations: T, Features: 200, Map: tc.fm, Landmarks: 200, Src: rand.NewPCG(1, 1)})
		if err := det.FitSource(context.Background(), src); err != nil {
			t.Fatal(err)
		}
		scanned, read := rs.scanned.Load(), rs.read.Load()
		t.Logf("%s, sequential %v: %d rows scanned, %d read by index (sample %d + T %d)", tc.fm, seq, scanned, read, sample, T)
		switch {
		case !seq && (scanned != 0 || read > int64(sample+T)):
			t.Errorf("%d rows scanned and %d read by index, want none scanned and at most %d + %d read", scanned, read, sample, T)
		case seq && (read != 0 || scanned > 2*n):
			t.Errorf("%d rows scanned and %d read by index from a sequential source, want at most two passes (%d rows)", scanned, read, 2*n)
		}
	}
}

// TestFitSourceEqualsFit: a fit from a source that cuts its chunks at 37
// rows (read by index, or in passes with or without a known row count)
// saves the same model as Fit of the rows in one matrix, bit for bit, for
// both solvers (the SGD solver on a sample of 1,000 of the 3,000 rows, and
// on every row); the sample a pass with no row count draws is a reservoir,
// another sample, so that case is left to the batch solver.
func TestFitSourceEqualsFit(t *testing.T) {
	const n, d = 3000, 6
	X := mat.NewDense(n, d, nil)
	(&rowSource{n: n, d: d, cut: n}).Scan(context.Background(), n, func(_ int, Y mat.Matrix) error { X.Copy(Y); return nil })
	save := func(det detector.Detector) []byte {
		var b bytes.Buffer
		if err := detector.Save(&b, det); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	for _, params := range []map[string]string{
		{"solver": "batch"},
		{"solver": "batch", "threshold_rows": "500", "gamma": "median"},
		{"solver": "sgd", "stage_rows": "1000", "iterations": "2000"},
		{"solver": "sgd", "iterations": "500"},
	} {
		params["map"], params["features"], params["seed"] = "rff", "300", "2"
		want, err := detector.New("expose", params)
		if err != nil {
			t.Fatal(err)
		}
		if err := want.Fit(context.Background(), X); err != nil {
			t.Fatal(err)
		}
		for _, kind := range []string{"index", "passes", "passes, rows unknown"} {
			if kind == "passes, rows unknown" && params["stage_rows"] != "" {
				continue
			}
			rs := &rowSource{X: X, n: n, d: d, cut: 37, unknown: kind == "passes, rows unknown"}
			var src detector.Source = rs
			if kind == "index" {
				src = indexSource{rs}
			}
			got, _ := detector.New("expose", params)
			if err := detector.FitSource(context.Background(), got, src); err != nil {
				t.Fatalf("%v from %s: %v", params, kind, err)
			}
			if !bytes.Equal(save(got), save(want)) {
				t.Errorf("%v: the fit from a source (%s) saves another model than Fit", params, kind)
			}
		}
	}
}

// BenchmarkSGDFit (issue 32): an SGD fit of T = 1,000 steps with D = 2000
// on n rows of 10 columns in memory, at the default stage (standard) and
// width rule (scale_scott) fitted on a sample of 10,000 rows: its time
// should not grow with n. Fit checks every value of a matrix for NaN and
// ±Inf (method.Base), the one O(n·d) pass left, which a fit from a source
// read by index (FitSource of the same rows, "source") does not make.
func BenchmarkSGDFit(b *testing.B) {
	const d = 10
	X := mat.NewDense(4_000_000, d, nil)
	(&rowSource{n: 4_000_000, d: d, cut: 1 << 16}).Scan(context.Background(), 1<<16, func(lo int, Y mat.Matrix) error {
		r, _ := Y.Dims()
		X.Slice(lo, lo+r, 0, d).(*mat.Dense).Copy(Y)
		return nil
	})
	for _, n := range []int{100_000, 1_000_000, 4_000_000} {
		sub := X.Slice(0, n, 0, d).(*mat.Dense)
		for _, from := range []string{"matrix", "source"} {
			b.Run(fmt.Sprintf("n=%d/%s", n, from), func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					det := mustNew(b, Config{Solver: SGD, Iterations: 1000, Src: rand.NewPCG(uint64(i), 1)})
					var err error
					if from == "matrix" {
						err = det.Fit(context.Background(), sub)
					} else {
						err = det.FitSource(context.Background(), indexSource{&rowSource{X: sub, n: n, d: d, cut: 1 << 16}})
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
