package detectortest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/detector"
)

// deadlinePoints is the number of deadlines the Transaction check spreads
// over a measured refit.
const deadlinePoints = 20

// refitProblem is Options.Refit with its defaults filled in (2000 rows,
// the suite's width) and its rows: a Gaussian mixture of seed (9, 9).
func (s *suite) refitProblem() (Cancel, *mat.Dense) {
	rf := s.opts.Refit
	if rf.Rows == 0 {
		rf.Rows = 2000
	}
	if rf.Cols == 0 {
		_, rf.Cols = s.train.Dims()
	}
	return rf, mat.DenseCopyOf(dataset.GaussianMixture(rf.Rows, rf.Cols, s.c, rand.NewPCG(9, 9)).X)
}

// transaction checks that a fit is a transaction: a refit that fails,
// for any reason, leaves the detector exactly as it was. The detector is
// fitted on the suite's rows, then refitted on the Refit problem under
// deadlines at deadlinePoints points spread over a measured refit (from
// 5% to 110% of its time), while other goroutines keep scoring; after
// every refit that returned an error, Save gives the same bytes as
// before, Score and Predict the same results and Threshold and the
// warning the same values. Then a source that fails at the end of each of
// its passes in turn (an I/O error late in the data) does the same, for a
// detector that fits from a Source.
func (s *suite) transaction(t *testing.T) {
	rf, X := s.refitProblem()
	if rf.Cols != s.opts.Features && len(s.opts.Shape) > 0 {
		t.Fatal("Options.Refit.Cols must be the sample shape's size for a tensor method")
	}
	params := maps.Clone(s.params)
	maps.Copy(params, rf.Params)

	orig := s.fitted(t, rf.Params)
	want := snapshotOf(t, orig, s.test)

	// A full refit, measured on copies of the fitted detector: the
	// fastest of three (the first pays for cold caches).
	full := time.Duration(math.MaxInt64)
	for range 3 {
		probe := Reload(t, orig)
		start := time.Now()
		if err := probe.Fit(context.Background(), X); err != nil {
			t.Fatalf("refit (%v) of %d×%d: %v", params, rf.Rows, rf.Cols, err)
		}
		full = min(full, time.Since(start))
	}
	t.Logf("a full refit of %d×%d takes %v", rf.Rows, rf.Cols, full)

	// The deadlines; when no refit was stopped (the measured refit was
	// slow for once, a cold cache, a busy machine), again over a quarter
	// of the time, up to three times more.
	failed := 0
	for round := 0; failed == 0 && round < 4; round++ {
		for k := range deadlinePoints {
			at := time.Duration(float64(full) * (0.05 + 1.05*float64(k)/(deadlinePoints-1)))
			d := Reload(t, orig)
			if k == deadlinePoints/2 {
				d = s.fitted(t, rf.Params) // once a detector that was fitted, not loaded
			}
			err := refitUnderScore(t, d, s.test, func() error {
				ctx, cancel := context.WithTimeout(context.Background(), at)
				defer cancel()
				return d.Fit(ctx, X)
			})
			if err == nil {
				continue // the refit finished before its deadline
			}
			failed++
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("refit with a deadline at %v returned %v, want context.DeadlineExceeded", at, err)
			}
			if got := snapshotOf(t, d, s.test); !got.equal(want) {
				t.Errorf("after a refit stopped at %v (%v): %s", at, err, got.diff(want))
			}
		}
		t.Logf("%d of %d refits stopped by deadlines spread over %v", failed, deadlinePoints, full)
		full /= 4
	}
	if failed == 0 {
		t.Errorf("no refit was stopped by its deadline: the refit does not hear its context")
	}

	// An error late in the data: a source that fails at the end of its
	// k-th pass (or row read), for every k a fit makes.
	counter := &failingSource{X: X, failAt: -1}
	if err := detector.FitSource(context.Background(), Reload(t, orig), counter); err != nil {
		t.Fatalf("FitSource of %d×%d: %v", rf.Rows, rf.Cols, err)
	}
	reads := int(counter.reads.Load())
	for k := range reads {
		d := Reload(t, orig)
		src := &failingSource{X: X, failAt: int64(k)}
		err := refitUnderScore(t, d, s.test, func() error { return detector.FitSource(context.Background(), d, src) })
		if !errors.Is(err, errInjected) {
			t.Errorf("fit from a source failing at its read %d of %d returned %v, want the read error", k+1, reads, err)
			continue
		}
		if got := snapshotOf(t, d, s.test); !got.equal(want) {
			t.Errorf("after a fit failed at read %d of %d: %s", k+1, reads, got.diff(want))
		}
	}
	t.Logf("a read error injected at each of the %d reads of a fit from a source left the model as it was", reads)
}

// refitUnderScore runs refit while two goroutines score X with d in a
// loop (the race detector watches them), and returns refit's error.
func refitUnderScore(t *testing.T, d detector.Detector, X mat.Matrix, refit func() error) error {
	t.Helper()
	var (
		stop atomic.Bool
		wg   sync.WaitGroup
	)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if _, err := d.Score(nil, X); err != nil {
					t.Errorf("Score during a refit: %v", err)
					return
				}
				if _, err := detector.Predict(context.Background(), nil, d, X); err != nil {
					t.Errorf("Predict during a refit: %v", err)
					return
				}
			}
		}()
	}
	err := refit()
	stop.Store(true)
	wg.Wait()
	return err
}

// snapshot is what a user can observe of a fitted detector.
type snapshot struct {
	saved     []byte
	scores    []float64
	labels    []int
	threshold float64
	warning   string
}

func snapshotOf(t *testing.T, d detector.Detector, X mat.Matrix) snapshot {
	t.Helper()
	var buf bytes.Buffer
	if err := detector.Save(&buf, d); err != nil {
		t.Fatalf("Save: %v", err)
	}
	sc, err := d.Score(nil, X)
	if err != nil {
		t.Fatalf("Score: %v", err)
	}
	lab, err := detector.Predict(context.Background(), nil, d, X)
	if err != nil {
		t.Fatalf("Predict: %v", err)
	}
	return snapshot{saved: buf.Bytes(), scores: sc, labels: lab, threshold: d.Threshold(), warning: warningOf(d)}
}

func (a snapshot) equal(b snapshot) bool {
	return bytes.Equal(a.saved, b.saved) && slices.Equal(a.scores, b.scores) && slices.Equal(a.labels, b.labels) &&
		math.Float64bits(a.threshold) == math.Float64bits(b.threshold) && a.warning == b.warning
}

// diff names what differs between the snapshot a and the one before, b.
func (a snapshot) diff(b snapshot) string {
	switch {
	case !bytes.Equal(a.saved, b.saved):
		i := 0
		for i < min(len(a.saved), len(b.saved)) && a.saved[i] == b.saved[i] {
			i++
		}
		return fmt.Sprintf("Save writes other bytes than before the refit (%d bytes, before %d; from byte %d: %q, before %q)",
			len(a.saved), len(b.saved), i, a.saved[i:min(len(a.saved), i+40)], b.saved[i:min(len(b.saved), i+40)])
	case !slices.Equal(a.scores, b.scores):
		return "Score gives other scores than before the refit"
	case !slices.Equal(a.labels, b.labels):
		return "Predict gives other labels than before the refit"
	case a.threshold != b.threshold:
		return "the threshold changed"
	}
	return "the warning changed from " + b.warning + " to " + a.warning
}

// errInjected is the read error of a failingSource.
var errInjected = errors.New("detectortest: injected read error")

// failingSource is a matrix as a method.RowReader whose read number
// failAt (a chunk that ends a Scan, or a ReadRows) fails; it counts its
// reads (failAt < 0: none fails).
type failingSource struct {
	X      *mat.Dense
	failAt int64
	reads  atomic.Int64
}

func (f *failingSource) Dims() (int, int) { return f.X.Dims() }
func (f *failingSource) Sparse() bool     { return false }

// read counts a read and reports whether it is the one that fails.
func (f *failingSource) read() bool { return f.reads.Add(1)-1 == f.failAt }

func (f *failingSource) Scan(ctx context.Context, max int, fn func(lo int, X mat.Matrix) error) error {
	n, c := f.X.Dims()
	for lo := 0; lo < n; lo += max {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(n, lo+max)
		if hi == n && f.read() { // the pass's last chunk
			return errInjected
		}
		if err := fn(lo, f.X.Slice(lo, hi, 0, c)); err != nil {
			return err
		}
	}
	return nil
}

func (f *failingSource) ReadRows(_ context.Context, idx []int) (mat.Matrix, error) {
	if f.read() {
		return nil, errInjected
	}
	_, c := f.X.Dims()
	out := mat.NewDense(len(idx), c, nil)
	for k, i := range idx {
		copy(out.RawRowView(k), f.X.RawRowView(i))
	}
	return out, nil
}

// warningOf is the warning of d's fit (detector.Describe).
func warningOf(d detector.Detector) string {
	desc, _ := detector.Describe(d)
	return desc.Warning
}
