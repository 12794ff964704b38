package detectortest

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/method"
)

// Cancellation latency bounds: the 95th percentile and the worst of the
// delays between a context's end and the return of the Fit or Score it
// stops, over latencyPoints cancels spread over the operation.
const (
	latencyP95    = 100 * time.Millisecond
	latencyWorst  = 250 * time.Millisecond
	latencyPoints = 20
	latencyFit    = 2 * time.Second // the shortest full fit the check times
	latencyBytes  = 1 << 30         // the most a grown problem may hold
)

// LatencyEnv is the environment variable that runs the Latency check
// (make test-latency sets it): it times operations of several seconds,
// which a shared or loaded machine distorts, so make test skips it.
const LatencyEnv = "ANOMALY_LATENCY"

// latency measures how late a cancelled Fit and a cancelled Score return:
// on the Cancel problem, a full fit is timed (with the progress reports'
// stages and the longest gap between reports of each), then fits are
// cancelled at latencyPoints points spread over it (from 5% to 95% of its
// time); the same for Score of ScoreRows rows through
// detector.ScoreContext. The 95th percentile must be within latencyP95
// and the worst within latencyWorst.
func (s *suite) latency(t *testing.T) {
	if os.Getenv(LatencyEnv) == "" {
		t.Skip("times operations of several seconds: run with " + LatencyEnv + "=1 (make test-latency)")
	}
	cn := s.opts.Cancel
	if cn.Rows == 0 || cn.Cols == 0 {
		t.Fatal("Options.Cancel is not set: give a fit that takes well over a second")
	}
	// The full fit, with its progress on the counting clock, on the
	// Cancel problem's rows doubled until the fit takes latencyFit (at
	// most three times, while the method's estimate stays within
	// latencyBytes): a problem that takes several seconds on the machine
	// at hand.
	var (
		X    *mat.Dense
		d    detector.Detector
		rec  *recorder
		full time.Duration
	)
	for grow := 0; ; grow++ {
		X = mat.DenseCopyOf(dataset.GaussianMixture(cn.Rows, cn.Cols, s.c, rand.NewPCG(3, 3)).X)
		rec = newRecorder()
		d = s.build(t, s.withProgress(cn.Params, rec.report))
		start := time.Now()
		if err := d.Fit(context.Background(), X); err != nil {
			t.Fatalf("Fit of %d×%d: %v", cn.Rows, cn.Cols, err)
		}
		full = time.Since(start)
		rec.end()
		if full >= latencyFit || grow == 3 {
			break
		}
		est, err := method.Memory(d, method.FitOp, method.Size{Rows: 2 * cn.Rows, Cols: cn.Cols, NonZeros: 2 * int64(cn.Rows) * int64(cn.Cols)})
		if err != nil || est+16*int64(cn.Rows)*int64(cn.Cols) > latencyBytes {
			break
		}
		cn.Rows *= 2
	}
	t.Logf("LATENCY %s fit of %d×%d: %.2f s", s.name, cn.Rows, cn.Cols, full.Seconds())
	rec.check(t)

	fitLate := cancelDelays(t, full, func(ctx context.Context) error {
		return s.build(t, s.params2(cn.Params)).Fit(ctx, X)
	})
	report(t, s.name, "Fit", fitLate)

	rows := cn.ScoreRows
	if rows == 0 {
		rows = cn.Rows
	}
	// Score's rows, doubled as the fit's were until a score takes
	// latencyFit (at most four times, within latencyBytes).
	var (
		Q         *mat.Dense
		fullScore time.Duration
	)
	for grow := 0; ; grow++ {
		Q = repeatRows(X, rows)
		start := time.Now()
		if _, err := detector.ScoreContext(context.Background(), d, nil, Q); err != nil {
			t.Fatalf("Score of %d rows: %v", rows, err)
		}
		fullScore = time.Since(start)
		if fullScore >= latencyFit || grow == 4 || 16*int64(rows)*int64(cn.Cols) > latencyBytes {
			break
		}
		rows *= 2
	}
	t.Logf("LATENCY %s score of %d rows: %.2f s", s.name, rows, fullScore.Seconds())
	scoreLate := cancelDelays(t, fullScore, func(ctx context.Context) error {
		_, err := detector.ScoreContext(ctx, d, nil, Q)
		return err
	})
	report(t, s.name, "Score", scoreLate)
}

// cancelDelays runs op latencyPoints times, cancelling it at points
// spread over full, and returns how late each returned after its cancel
// (runs that finished first are left out).
func cancelDelays(t *testing.T, full time.Duration, op func(ctx context.Context) error) []time.Duration {
	t.Helper()
	var late []time.Duration
	for k := range latencyPoints {
		at := time.Duration(float64(full) * (0.05 + 0.9*float64(k)/(latencyPoints-1)))
		ctx, cancel := context.WithCancel(context.Background())
		var (
			mu        sync.Mutex
			cancelled time.Time
		)
		timer := time.AfterFunc(at, func() {
			mu.Lock()
			cancelled = time.Now()
			mu.Unlock()
			cancel()
		})
		err := op(ctx)
		done := time.Now()
		timer.Stop()
		cancel()
		mu.Lock()
		c := cancelled
		mu.Unlock()
		if c.IsZero() {
			continue
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled at %v: returned %v, want context.Canceled", at, err)
		}
		late = append(late, done.Sub(c))
	}
	return late
}

// report logs the delays' percentiles and checks the bounds.
func report(t *testing.T, name, op string, late []time.Duration) {
	t.Helper()
	if len(late) == 0 {
		t.Errorf("%s: no %s was cancelled before it finished", name, op)
		return
	}
	sort.Slice(late, func(i, j int) bool { return late[i] < late[j] })
	ms := func(d time.Duration) float64 { return d.Seconds() * 1000 }
	p50 := late[len(late)/2]
	p95 := late[min(len(late)-1, (95*len(late)+99)/100-1)]
	worst := late[len(late)-1]
	t.Logf("LATENCY %s %s cancelled %d times: p50 %.1f ms, p95 %.1f ms, worst %.1f ms", name, op, len(late), ms(p50), ms(p95), ms(worst))
	if p95 > latencyP95 || worst > latencyWorst {
		t.Errorf("%s %s returns up to %.0f ms after its cancel (p95 %.0f ms): want p95 ≤ %v, worst ≤ %v", name, op, ms(worst), ms(p95), latencyP95, latencyWorst)
	}
}

// repeatRows returns rows of X repeated to n rows.
func repeatRows(X *mat.Dense, n int) *mat.Dense {
	r, c := X.Dims()
	if n == r {
		return X
	}
	out := mat.NewDense(n, c, nil)
	for i := range n {
		copy(out.RawRowView(i), X.RawRowView(i%r))
	}
	return out
}

// progressCheck fits the Refit problem with a progress callback and
// checks the reports (checkReports).
func (s *suite) progressCheck(t *testing.T) {
	rf, X := s.refitProblem()
	rec := newRecorder()
	d := s.build(t, s.withProgress(rf.Params, rec.report))
	if err := d.Fit(context.Background(), X); err != nil {
		t.Fatalf("Fit of %d×%d: %v", rf.Rows, rf.Cols, err)
	}
	rec.end()
	rec.check(t)
}

// progressEvery is the longest a fit may go without a progress report,
// on the counting clock: the process's CPU time divided by GOMAXPROCS
// (the seconds of a fit that keeps every core busy). CPU time counts the
// fit's own work, not the time other processes take from it, so the
// check holds on a loaded machine; under the race detector the work
// costs more CPU, and the reports come as much later.
const progressEvery = time.Second

// recorder records a fit's progress reports with the counting clock.
type recorder struct {
	mu     sync.Mutex
	start  float64
	last   float64 // clock at the last report
	gap    float64 // longest time without a report
	stages []string
	seen   map[string][]rep
}

type rep struct {
	done, total int
}

func newRecorder() *recorder {
	r := &recorder{seen: map[string][]rep{}}
	r.start = clock()
	r.last = r.start
	return r
}

// clock is the counting clock (see progressEvery); 0 where the process's
// CPU time is not available.
func clock() float64 {
	c, _ := cpuSeconds()
	return c / float64(runtime.GOMAXPROCS(0))
}

func (r *recorder) report(stage string, done, total int) {
	now := clock()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gap = max(r.gap, now-r.last)
	r.last = now
	if _, ok := r.seen[stage]; !ok {
		r.stages = append(r.stages, stage)
	}
	r.seen[stage] = append(r.seen[stage], rep{done, total})
}

// end records the end of the fit (the time after the last report
// counts).
func (r *recorder) end() {
	now := clock()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gap = max(r.gap, now-r.last)
}

// check checks the reports: within a stage done never decreases and never
// passes a positive total; every stage with a positive total ends at it;
// and the fit never went longer than progressEvery on the counting clock
// without a report (from its start to its end).
func (r *recorder) check(t *testing.T) {
	t.Helper()
	for _, st := range r.stages {
		reps := r.seen[st]
		prev := reps[0]
		for i, p := range reps {
			switch {
			case p.total == prev.total && p.done < prev.done:
				t.Errorf("stage %q: report %d goes back from %d to %d of %d", st, i+1, prev.done, p.done, p.total)
			case p.total > 0 && p.done > p.total:
				t.Errorf("stage %q: report %d is %d of %d, past the total", st, i+1, p.done, p.total)
			}
			prev = p
		}
		if end := reps[len(reps)-1]; end.total > 0 && end.done != end.total {
			t.Errorf("stage %q ends at %d of %d, not at its total", st, end.done, end.total)
		}
	}
	if time.Duration(r.gap*float64(time.Second)) > progressEvery {
		t.Errorf("the fit went %.2f s (CPU time per core) without a progress report, more than %v", r.gap, progressEvery)
	}
	t.Logf("stages: %s; longest time without a report: %.3f s (CPU time per core)", strings.Join(r.stages, ", "), r.gap)
}

// withProgress returns the suite's parameters with extra merged over them
// and a progress callback to install.
func (s *suite) withProgress(extra map[string]string, progress func(stage string, done, total int)) built {
	b := s.params2(extra)
	b.progress = progress
	return b
}

// built is what build makes a detector from.
type built struct {
	params   map[string]string
	progress func(stage string, done, total int)
}

func (s *suite) params2(extra map[string]string) built {
	p := map[string]string{}
	for k, v := range s.params {
		p[k] = v
	}
	for k, v := range extra {
		p[k] = v
	}
	return built{params: p}
}

// build makes an unfitted detector of the suite's method.
func (s *suite) build(t *testing.T, b built) detector.Detector {
	t.Helper()
	d, err := detector.New(s.name, b.params, detector.Options{Progress: b.progress})
	if err != nil {
		t.Fatalf("detector.New(%q, %v): %v", s.name, b.params, err)
	}
	return d
}
