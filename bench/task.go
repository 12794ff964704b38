package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/eval"
	"github.com/kernelad/anomaly/param"
)

// Task is one run of the protocol: one method on one data set with one
// seed (and, under the class protocol, one normal class). It is plain data
// (JSON-encodable) so that a Runner may hand it to another process.
type Task struct {
	// Data is a data set reference for Open.
	Data string `json:"data"`
	// Method is a registered method name; Params its parameters (the seed
	// parameter is set from Seed when the method has one and Params does
	// not name it; the shape parameter from the data set for tensor
	// methods).
	Method string            `json:"method"`
	Params map[string]string `json:"params,omitempty"`
	// Seed drives the split (and the method, see Params).
	Seed uint64 `json:"seed"`
	// Class is the normal class under the class protocol, or −1 for the
	// ADBench protocol on the data set's own labels.
	Class int `json:"class"`
	// Raw skips the protocol's min-max scaling: the method sees the data
	// set's own units, as a user's file gives them (--protocol raw).
	Raw bool `json:"raw,omitempty"`
	// KeepScores asks for the test scores and labels in the Outcome (for
	// ROC and PR curves).
	KeepScores bool `json:"keep_scores,omitempty"`
	// Split, when set, is the file Run prepared with this task's split
	// (Config.SplitDir): RunSplitTask reads it instead of the data set.
	Split string `json:"split,omitempty"`
	// MaxBytes, when positive, is the memory budget of the task
	// (Config.MaxBytes): a data file whose values pass it is not read, and
	// a fit or score whose estimate (method.Memory) passes it is not
	// run; the outcome says so.
	MaxBytes int64 `json:"max_bytes,omitempty"`
}

// Outcome is what one Task measured.
type Outcome struct {
	// AUC and AP are the area under the ROC curve and the average precision
	// of the test scores (eval.AUCROC, eval.AveragePrecision).
	AUC float64 `json:"auc"`
	AP  float64 `json:"ap"`
	// FitSeconds and ScoreSeconds are wall-clock times of Fit on the train
	// part and of Score on the test part.
	FitSeconds   float64 `json:"fit_seconds"`
	ScoreSeconds float64 `json:"score_seconds"`
	// PeakBytes is the peak memory of the run; Memory says what was
	// measured ("heap": the peak of Go heap objects in this process,
	// sampled every 5 ms during Fit and Score; "rss": the peak resident
	// set size of the process that ran the task, reset just before it, so
	// the runtime and the task's data or prepared split included). 0 when
	// not measured.
	PeakBytes int64  `json:"peak_bytes"`
	Memory    string `json:"memory,omitempty"`
	// TrainRows, TestRows and TestAnomalies describe the split.
	TrainRows     int `json:"train_rows"`
	TestRows      int `json:"test_rows"`
	TestAnomalies int `json:"test_anomalies"`
	// Scores and Labels are the test scores and labels when the task asked
	// for them.
	Scores []float64 `json:"scores,omitempty"`
	Labels []int     `json:"labels,omitempty"`
	// Err is the failure of the run ("" on success); TimedOut marks a run
	// stopped by Config.Timeout.
	Err      string `json:"error,omitempty"`
	TimedOut bool   `json:"timed_out,omitempty"`
	// DataErr marks a failure that the data set causes: it cannot be
	// read or split, its test labels hold one class, it is too large for
	// the method under the memory budget, or the method refuses its
	// values. Failures of the method's parameters, timeouts, signals,
	// panics and a lost task process are not (the command exits 2 for
	// the first kind when every run fails, 3 for the rest).
	DataErr bool `json:"data_error,omitempty"`
}

// OK reports whether the run finished and produced figures.
func (o *Outcome) OK() bool { return o.Err == "" && !o.TimedOut }

// Split applies the protocol of a task to a loaded data set: the ADBench
// protocol (dataset.SplitADBench) on the data set's labels when class < 0,
// and otherwise the class protocol (ClassSplit) with that normal class.
// With raw set, the split rows stay in the data set's own units (no min-max
// scaling): the data as users bring it.
func Split(ds *dataset.Dataset, class int, seed uint64, raw bool) (train, test *dataset.Dataset, err error) {
	if class < 0 {
		if ds.Y == nil && ds.Class != nil {
			return nil, nil, fmt.Errorf("bench: %s holds class indices, not anomaly labels: use the class protocol", ds.Source)
		}
		if raw {
			return dataset.SplitADBenchRaw(ds, seed)
		}
		return dataset.SplitADBench(ds, seed)
	}
	if raw {
		return dataset.ClassSplitRaw(ds, class, seed)
	}
	return dataset.ClassSplit(ds, class, seed)
}

// RunTask runs one task in this process on the loaded data set ds (the
// data set t.Data names): split, build, Fit on the train part, Score the
// test part, evaluate. Failures are reported in Outcome.Err, never as a
// panic. ctx bounds the fit (detectors honour it); a detector that ignores
// ctx runs to its end. Memory is the peak of Go heap objects, sampled.
func RunTask(ctx context.Context, ds *dataset.Dataset, t Task) (out Outcome) {
	defer func() {
		if r := recover(); r != nil {
			out = Outcome{Err: fmt.Sprintf("panic: %v", r)}
		}
	}()
	train, test, err := Split(ds, t.Class, t.Seed, t.Raw)
	if err != nil {
		return Outcome{Err: err.Error(), DataErr: true}
	}
	return runSplit(ctx, train, test, ds.Shape, t)
}

// runSplit builds the task's detector, fits it on train and scores test.
func runSplit(ctx context.Context, train, test *dataset.Dataset, shape []int, t Task) (out Outcome) {
	defer func() {
		if r := recover(); r != nil {
			out = Outcome{Err: fmt.Sprintf("panic: %v", r)}
		}
	}()
	if _, ok := detector.Lookup(t.Method); !ok {
		return Outcome{Err: fmt.Sprintf("unknown method %q", t.Method)}
	}
	out.TrainRows, out.TestRows, out.TestAnomalies = train.Rows(), test.Rows(), test.Anomalies()
	seed := t.Seed
	d, err := detector.New(t.Method, t.Params, detector.Options{Shape: shape, Seed: &seed})
	if err != nil {
		out.Err = err.Error()
		return out
	}
	// The split's rows stay held beside each step (the estimates count
	// what the method allocates: an r1svm bench run peaked 1.22 times
	// its budget).
	held := dataBytes(train) + dataBytes(test)
	if msg := overBudget(d, method.FitOp, train, "fitting", t, held); msg != "" {
		out.Err, out.DataErr = msg, true
		return out
	}
	mem := startHeapSampler()
	start := time.Now()
	err = d.Fit(ctx, train.X)
	if err == nil { // a score estimate needs the fitted model
		if msg := overBudget(d, method.ScoreOp, test, "scoring", t, held); msg != "" {
			err = errors.New(msg)
		}
	}
	out.FitSeconds = time.Since(start).Seconds()
	if err == nil {
		start = time.Now()
		var scores []float64
		scores, err = d.Score(nil, test.X)
		out.ScoreSeconds = time.Since(start).Seconds()
		if err == nil {
			out.AUC = eval.AUCROC(scores, test.Y)
			out.AP = eval.AveragePrecision(scores, test.Y)
			if cerr := eval.Check(scores, test.Y); cerr != nil {
				err = cerr
			}
			if t.KeepScores {
				out.Scores, out.Labels = scores, test.Y
			}
		}
	}
	out.PeakBytes, out.Memory = mem.stop(), "heap"
	if err != nil {
		var pe *param.Error
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			out.TimedOut = errors.Is(err, context.DeadlineExceeded)
		} else if !errors.As(err, &pe) {
			// As fit and score classify a method's refusal: bad data
			// unless a parameter is the cause.
			out.DataErr = true
		}
		out.Err = err.Error()
	}
	return out
}

// overBudget says why op on rows would pass the task's memory budget, or
// "" when its estimate fits or there is no budget.
func overBudget(d detector.Detector, op method.Op, rows *dataset.Dataset, what string, t Task, held int64) string {
	if t.MaxBytes <= 0 {
		return ""
	}
	est, err := method.Memory(d, op, method.SizeOf(rows.X))
	if err != nil {
		return ""
	}
	if est = min(est, math.MaxInt64-held-ProcessBytes) + held + ProcessBytes; est <= t.MaxBytes {
		return ""
	}
	r, c := rows.X.Dims()
	return fmt.Sprintf("%s %d × %d rows with %s needs about %s, over the memory budget of %s", what, r, c, t.Method, dataset.FormatBytes(est), dataset.FormatBytes(t.MaxBytes))
}

// heapSampler records the peak of live Go heap objects.
type heapSampler struct {
	done chan struct{}
	wg   sync.WaitGroup
	peak int64
}

const heapMetric = "/memory/classes/heap/objects:bytes"

func readHeap(s []metrics.Sample) int64 {
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

func startHeapSampler() *heapSampler {
	h := &heapSampler{done: make(chan struct{})}
	s := []metrics.Sample{{Name: heapMetric}}
	h.peak = readHeap(s)
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		s := []metrics.Sample{{Name: heapMetric}}
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-h.done:
				return
			case <-tick.C:
				if v := readHeap(s); v > h.peak {
					h.peak = v
				}
			}
		}
	}()
	return h
}

func (h *heapSampler) stop() int64 {
	close(h.done)
	h.wg.Wait()
	if v := readHeap([]metrics.Sample{{Name: heapMetric}}); v > h.peak {
		h.peak = v
	}
	return h.peak
}

// ProcessBytes is what a process of the program takes before any data:
// the Go runtime and the 18 MB binary. 'anomaly methods' alone peaks at
// 11 MB of RSS, and small fits and scores peaked 13–16 MB above estimates
// that left it out (an ocsvm fit accepted under 1 MB peaked at 14.6 MB).
const ProcessBytes = 16 << 20

// dataBytes is the memory of a data set's matrix (method.Size.Bytes).
func dataBytes(ds *dataset.Dataset) int64 { return int64(method.SizeOf(ds.X).Bytes()) }
