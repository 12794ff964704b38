package iforest

import (
	"bytes"
	"context"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/detectortest"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/internal/testmat"
)

// countingSource is a matrix as a sequential detector.Source (a text
// file: rows asked for by index are read in a pass) that counts what a
// fit reads: its passes and the rows they hand out, and (indexSource)
// the rows read by index.
type countingSource struct {
	X       mat.Matrix
	passes  atomic.Int64
	scanned atomic.Int64
	indexed atomic.Int64
}

func (s *countingSource) Dims() (int, int) { return s.X.Dims() }

func (s *countingSource) Sparse() bool {
	_, ok := csr.Canonical(s.X)
	return ok
}

func (s *countingSource) Scan(ctx context.Context, max int, fn func(lo int, X mat.Matrix) error) error {
	s.passes.Add(1)
	n, _ := s.X.Dims()
	for lo := 0; lo < n; lo += max {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(n, lo+max)
		s.scanned.Add(int64(hi - lo))
		if err := fn(lo, csr.Rows(s.X, lo, hi)); err != nil {
			return err
		}
	}
	return nil
}

// indexSource is a countingSource that also reads rows by index.
type indexSource struct{ *countingSource }

func (s indexSource) ReadRows(_ context.Context, idx []int) (mat.Matrix, error) {
	s.indexed.Add(int64(len(idx)))
	if sp, ok := csr.Canonical(s.X); ok {
		return csr.Subset(sp, idx), nil
	}
	_, c := s.X.Dims()
	out := mat.NewDense(len(idx), c, nil)
	for k, i := range idx {
		mat.Row(out.RawRowView(k), i, s.X)
	}
	return out, nil
}

func saved(t *testing.T, d detector.Detector) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := detector.Save(&buf, d); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fitBoth fits one detector on X in memory and one from src, and requires
// the same model file (forest, threshold, warning) and the same scores of
// Q, bit for bit.
func fitBoth(t *testing.T, params map[string]string, X mat.Matrix, src detector.Source, Q mat.Matrix) {
	t.Helper()
	mem, err := detector.New("iforest", params)
	if err != nil {
		t.Fatal(err)
	}
	str, _ := detector.New("iforest", params)
	if !detectortest.FitsAlike(t, mem, str, X, src) {
		t.Errorf("%v: the model fitted from the source differs from the one fitted in memory", params)
	}
	a, _ := mem.Score(nil, Q)
	b, _ := str.Score(nil, Q)
	if !slices.Equal(a, b) {
		t.Errorf("%v: scores differ between the fit from the source and the fit in memory", params)
	}
}

// A fit from a source whose rows are read by index reads only the rows
// its trees draw (their union: at most trees × ψ) and the ThresholdRows
// rows it scores, makes no pass over the data, and gives the model and
// scores of the fit in memory bit for bit. The 120,000 rows are more than
// ThresholdRows, so the threshold comes from evenly spaced rows; 10 trees
// keep the scoring short under -race.
func TestFitSourceReadsTheSubsamples(t *testing.T) {
	const n, trees, psi = 120000, 10, 256
	X := testmat.NormalSeed(n, 2, 4)
	src := indexSource{&countingSource{X: X}}
	params := map[string]string{"trees": "10", "seed": "3"}
	fitBoth(t, params, X, src, X.Slice(0, 500, 0, 2))
	if p := src.passes.Load(); p != 0 {
		t.Errorf("the fit passed over the data %d times, want 0", p)
	}
	if got, most := src.indexed.Load(), int64(trees*psi+ThresholdRows); got > most {
		t.Errorf("the fit read %d rows by index, want at most %d (trees × ψ + ThresholdRows)", got, most)
	}
	t.Logf("%d of %d rows read by index", src.indexed.Load(), n)
}

// From a sequential source (a text file) the fit reads the trees' rows in
// one pass and scores the training rows in another, or, when the trees
// draw every row (100 trees of 256 rows from 3,000), reads them once and
// scores them as read (the scale stage, when there is one, makes its own
// passes); for every precision and for sparse rows, the model and scores
// are those of the fit in memory.
func TestFitSourceSequential(t *testing.T) {
	dense := testmat.NormalSeed(3000, 4, 5)
	sp := csr.Random(600, 300, 12, 6)
	for _, tc := range []struct {
		X      mat.Matrix
		params map[string]string
		passes int64 // 0: not counted (the scale stage makes passes of its own)
	}{
		{dense, map[string]string{}, 1},
		{dense, map[string]string{"trees": "5"}, 2},
		{dense, map[string]string{"precision": "single", "seed": "2", "trees": "5"}, 2},
		{dense, map[string]string{"scale": "standard"}, 0},
		{dense, map[string]string{"scale": "standard", "trees": "5"}, 0},
		{sp, map[string]string{}, 1},
		{sp, map[string]string{"precision": "single", "trees": "2"}, 2},
	} {
		src := &countingSource{X: tc.X}
		n, _ := tc.X.Dims()
		fitBoth(t, tc.params, tc.X, src, csr.Rows(tc.X, 0, 200))
		if p := src.passes.Load(); tc.passes > 0 && p != tc.passes {
			t.Errorf("%v: %d passes over %d rows, want %d", tc.params, p, n, tc.passes)
		}
	}
}

// The threshold of a fit of more than ThresholdRows rows is the quantile
// of the scores of rows i·n/ThresholdRows, i < ThresholdRows, at the
// contamination rate.
func TestThresholdRows(t *testing.T) {
	const n = ThresholdRows + 1234
	X := testmat.NormalSeed(n, 2, 8)
	f, err := New(Config{Trees: 5})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Fit(context.Background(), X); err != nil {
		t.Fatal(err)
	}
	Q := mat.NewDense(ThresholdRows, 2, nil)
	for i := range ThresholdRows {
		Q.SetRow(i, X.RawRowView(int(int64(i)*n/ThresholdRows)))
	}
	s, _ := f.Score(nil, Q)
	if want := method.ThresholdFromScores(s, method.DefaultContamination); f.Threshold() != want {
		t.Errorf("threshold %v, want %v (the quantile of the evenly spaced rows' scores)", f.Threshold(), want)
	}
}

// A sparse matrix and a dense copy of it grow the same forest and give
// the same scores in single precision too (the conformance suite's Sparse
// check covers the default, double), and a CSR of wide rows is scored
// through its non-zeros.
func TestSparseSingle(t *testing.T) {
	sp := csr.Random(300, 5000, 30, 9)
	dense := mat.DenseCopyOf(sp)
	var prev []byte
	for _, X := range []mat.Matrix{sp, dense} {
		f, _ := New(Config{Precision: Single, Src: rand.NewPCG(1, 1)})
		if err := f.Fit(context.Background(), X); err != nil {
			t.Fatal(err)
		}
		m, _ := f.Model()
		b, _ := m.MarshalBinary()
		if prev != nil && !bytes.Equal(b, prev) {
			t.Fatal("the forest grown on the sparse rows differs from the dense rows'")
		}
		prev = b
		a, _ := f.Score(nil, sp)
		c, _ := f.Score(nil, dense)
		if !slices.Equal(a, c) {
			t.Fatal("sparse and dense rows score differently")
		}
	}
}

// Each fit with the seed parameter grows the same forest: the stream
// restarts at every fit.
func TestSeedRefit(t *testing.T) {
	X := testmat.NormalSeed(500, 3, 1)
	d, _ := detector.New("iforest", map[string]string{"seed": "4"})
	var first []byte
	for range 2 {
		if err := d.Fit(context.Background(), X); err != nil {
			t.Fatal(err)
		}
		if b := saved(t, d); first == nil {
			first = b
		} else if !bytes.Equal(b, first) {
			t.Error("a second fit with seed=4 grew another forest")
		}
	}
}
