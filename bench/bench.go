package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/dataset/embedded"
	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/eval"
)

// EmbeddedPrefix marks a data set reference that names an embedded data set
// (package dataset/embedded) rather than a file: "embedded:6_cardio".
const EmbeddedPrefix = "embedded:"

// ClassAnomalyShare is the share of anomalies in a data set built by the
// class protocol (ClassSplit).
const ClassAnomalyShare = 0.05

// DefaultSeeds are the seeds of a run whose Config.Seeds is empty: the
// seeds of the reference figures in shared/anchors/RESULTS.md.
var DefaultSeeds = []uint64{1, 2, 3}

// Embedded returns references to every embedded data set, in NaturalLess
// order of their names.
func Embedded() []string {
	names := embedded.Names()
	sort.Slice(names, func(i, j int) bool { return NaturalLess(names[i], names[j]) })
	var refs []string
	for _, n := range names {
		refs = append(refs, EmbeddedPrefix+n)
	}
	return refs
}

// NaturalLess orders data set names by their leading number, as ADBench
// numbers its files (4_breastw before 10_cover), then by name; names
// without a number come last.
func NaturalLess(a, b string) bool {
	lead := func(s string) (int, bool) {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		n, err := strconv.Atoi(s[:i])
		return n, err == nil
	}
	na, oka := lead(a)
	nb, okb := lead(b)
	switch {
	case oka && okb && na != nb:
		return na < nb
	case oka != okb:
		return oka
	}
	return a < b
}

// Open loads the data set a reference names: EmbeddedPrefix+NAME for an
// embedded data set, otherwise a file path read by dataset.Load.
func Open(ref string) (*dataset.Dataset, error) {
	if name, ok := strings.CutPrefix(ref, EmbeddedPrefix); ok {
		return embedded.Load(name)
	}
	return dataset.Load(ref, dataset.Options{})
}

// DataName is the short name of a data set reference shown in tables: the
// file name without directory and extension, or the embedded name.
func DataName(ref string) string {
	if name, ok := strings.CutPrefix(ref, EmbeddedPrefix); ok {
		return name
	}
	base := filepath.Base(ref)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// IsTensorMethod reports whether the named method takes a sample shape (a
// registry parameter "shape"): a tensor method.
func IsTensorMethod(name string) bool {
	m, ok := detector.Lookup(name)
	return ok && slices.ContainsFunc(m.Params, func(p detector.Param) bool { return p.Name == "shape" })
}

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
	// KeepScores asks for the test scores and labels in the Outcome (for
	// ROC and PR curves).
	KeepScores bool `json:"keep_scores,omitempty"`
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
	// sampled every 5 ms during Fit and Score; "rss": the maximum resident
	// set size of a separate process that ran only this task, data loading
	// included). 0 when not measured.
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
}

// OK reports whether the run finished and produced figures.
func (o *Outcome) OK() bool { return o.Err == "" && !o.TimedOut }

// Split applies the protocol of a task to a loaded data set: the ADBench
// protocol (dataset.SplitADBench) on the data set's labels when class < 0,
// and otherwise the class protocol (ClassSplit) with that normal class.
func Split(ds *dataset.Dataset, class int, seed uint64) (train, test *dataset.Dataset, err error) {
	if class < 0 {
		if ds.Y == nil && ds.Class != nil {
			return nil, nil, fmt.Errorf("bench: %s holds class indices, not anomaly labels: use the class protocol", ds.Source)
		}
		return dataset.SplitADBench(ds, seed)
	}
	return ClassSplit(ds, class, seed)
}

// ClassSplit is the class protocol for data sets labelled by class (the
// tensor files): the rows of class normal are normal, and anomalies are
// drawn without replacement, uniformly from the rows of every other class,
// until they make up ClassAnomalyShare (5%) of the set: k = max(2,
// round(0.05/0.95 · n_normal)) anomalies, capped at the rows available (at
// least 2, so that a stratified split can put one in each part). The draw
// uses a PCG source seeded with (seed, normal). The set then goes through
// the ADBench protocol (dataset.SplitADBench with the same seed: a 70/30
// stratified split and min-max scaling fit on the train part), so the
// training part holds about 5% unlabelled anomalies as in the ADBench
// runs.
func ClassSplit(ds *dataset.Dataset, normal int, seed uint64) (train, test *dataset.Dataset, err error) {
	if ds.Class == nil {
		return nil, nil, fmt.Errorf("bench: %s has no class labels for the class protocol", ds.Source)
	}
	var norm, other []int
	for i, c := range ds.Class {
		switch {
		case c == normal:
			norm = append(norm, i)
		case c >= 0:
			other = append(other, i)
		}
	}
	if len(norm) < 2 || len(other) < 2 {
		return nil, nil, fmt.Errorf("bench: %s: class %d has %d rows and the other classes %d; need 2 of each", ds.Source, normal, len(norm), len(other))
	}
	k := int(math.Round(ClassAnomalyShare / (1 - ClassAnomalyShare) * float64(len(norm))))
	k = min(max(k, 2), len(other))
	rng := rand.New(rand.NewPCG(seed, uint64(normal)))
	rng.Shuffle(len(other), func(a, b int) { other[a], other[b] = other[b], other[a] })
	idx := append(slices.Clone(norm), other[:k]...)
	slices.Sort(idx)
	sub := dataset.Subset(ds, idx)
	y := make([]int, len(idx))
	for i, c := range sub.Class {
		if c != normal {
			y[i] = 1
		}
	}
	sub.Y, sub.Class, sub.Split = y, nil, nil
	return dataset.SplitADBench(sub, seed)
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
	if _, ok := detector.Lookup(t.Method); !ok {
		return Outcome{Err: fmt.Sprintf("unknown method %q", t.Method)}
	}
	train, test, err := Split(ds, t.Class, t.Seed)
	if err != nil {
		return Outcome{Err: err.Error()}
	}
	out.TrainRows, out.TestRows, out.TestAnomalies = train.Rows(), test.Rows(), test.Anomalies()
	seed := t.Seed
	d, _, err := detector.Prepare(t.Method, t.Params, detector.Task{Shape: ds.Shape, Seed: &seed})
	if err != nil {
		out.Err = err.Error()
		return out
	}
	mem := startHeapSampler()
	start := time.Now()
	err = d.Fit(ctx, train.X)
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
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			out.TimedOut = errors.Is(err, context.DeadlineExceeded)
		}
		out.Err = err.Error()
	}
	return out
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

// Runner runs one task and reports its outcome; it must honour timeout
// (> 0) by stopping the task and returning an Outcome with TimedOut set.
type Runner func(ctx context.Context, t Task, timeout time.Duration) Outcome

// InProcess returns a Runner that runs tasks in this process with RunTask,
// loading each data set once (with Open) and keeping the last one. A task
// over the timeout is reported as timed out at once; its goroutine is
// abandoned and finishes in the background when the detector ignores ctx
// (run untrusted or slow methods with a process-per-task Runner instead,
// as the anomaly command does).
func InProcess() Runner {
	var (
		mu      sync.Mutex
		lastRef string
		last    *dataset.Dataset
	)
	return func(ctx context.Context, t Task, timeout time.Duration) Outcome {
		mu.Lock()
		if lastRef != t.Data || last == nil {
			ds, err := Open(t.Data)
			if err != nil {
				mu.Unlock()
				return Outcome{Err: err.Error()}
			}
			lastRef, last = t.Data, ds
		}
		ds := last
		mu.Unlock()
		if timeout <= 0 {
			return RunTask(ctx, ds, t)
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		ch := make(chan Outcome, 1)
		go func() { ch <- RunTask(ctx, ds, t) }()
		select {
		case o := <-ch:
			return o
		case <-ctx.Done():
			if ctx.Err() == context.DeadlineExceeded {
				return Outcome{TimedOut: true, Err: fmt.Sprintf("over the timeout of %v", timeout)}
			}
			return Outcome{Err: ctx.Err().Error()}
		}
	}
}

// Config describes a benchmark run. The zero value runs every registered
// method on every embedded data set with seeds 1, 2, 3, in this process.
type Config struct {
	// Methods to run; empty means every registered method. Tensor methods
	// (IsTensorMethod) run only on tensor data sets; the others run on
	// every data set, on the flattened rows of tensor data.
	Methods []string
	// Data lists data set references (Open); empty means Embedded().
	Data []string
	// Seeds; empty means DefaultSeeds. Seeds must be below 2³² (the
	// ADBench split replays scikit-learn's random_state).
	Seeds []uint64
	// Params holds parameters per method name, applied to every task of
	// that method (overriding the method's defaults).
	Params map[string]map[string]string
	// Timeout bounds each task (one fit and one scoring); 0 means none.
	Timeout time.Duration
	// Runner runs the tasks; nil means InProcess().
	Runner Runner
	// KeepScores keeps the test scores of every run (for curves).
	KeepScores bool
	// Progress, if not nil, is called after every task with stage
	// "bench DATA METHOD", the tasks done and the total.
	Progress detector.ProgressFunc
}

// Cell is the result of one method on one data set: medians over the runs
// that finished.
type Cell struct {
	Data   string `json:"data"`   // short data set name (DataName)
	Ref    string `json:"ref"`    // data set reference
	Method string `json:"method"` // method name
	// Protocol is "adbench" or "class" (class protocol, median over every
	// class in turn and every seed).
	Protocol string `json:"protocol"`
	// Input is "vector", "tensor" (a tensor method with the sample shape)
	// or "flat" (a vector method on the flattened rows of tensor data).
	Input string `json:"input"`
	// Medians over the finished runs (NaN when none finished).
	AUC          float64 `json:"auc"`
	AP           float64 `json:"ap"`
	FitSeconds   float64 `json:"fit_seconds"`
	ScoreSeconds float64 `json:"score_seconds"`
	PeakBytes    int64   `json:"peak_bytes"`
	// OK, Failed and TimedOut count the runs.
	OK       int `json:"ok"`
	Failed   int `json:"failed"`
	TimedOut int `json:"timed_out"`
	// Err is the first failure message ("" if none).
	Err string `json:"error,omitempty"`
	// Trials holds every task and its outcome.
	Trials []Trial `json:"trials"`
}

// Status is a short mark for tables: "ok", "timeout" when every run timed
// out, "failed" when no run finished otherwise, "partial" when some did.
func (c *Cell) Status() string {
	switch {
	case c.OK == len(c.Trials):
		return "ok"
	case c.OK > 0:
		return "partial"
	case c.TimedOut > 0 && c.Failed == 0:
		return "timeout"
	default:
		return "failed"
	}
}

// Trial is one task with its outcome.
type Trial struct {
	Task    Task    `json:"task"`
	Outcome Outcome `json:"outcome"`
}

// Result is a benchmark run: one Cell per (data set, method) pair that
// applies, in the order of Config.Data, then method name.
type Result struct {
	Seeds   []uint64                     `json:"seeds"`
	Methods []string                     `json:"methods"`
	Params  map[string]map[string]string `json:"params,omitempty"`
	Timeout float64                      `json:"timeout_seconds,omitempty"`
	Cells   []Cell                       `json:"cells"`
}

// plan is one data set's place in a run.
type plan struct {
	ref     string
	tensor  bool
	classes []int // class protocol when non-nil
}

// inspect loads a data set once to decide its protocol.
func inspect(ref string) (plan, error) {
	ds, err := Open(ref)
	if err != nil {
		return plan{}, err
	}
	p := plan{ref: ref, tensor: ds.Shape != nil}
	if ds.Y == nil {
		if ds.Class == nil {
			return plan{}, fmt.Errorf("bench: %s has no labels", ref)
		}
		seen := map[int]bool{}
		for _, c := range ds.Class {
			if c >= 0 && !seen[c] {
				seen[c] = true
				p.classes = append(p.classes, c)
			}
		}
		sort.Ints(p.classes)
	}
	return p, nil
}

// Run runs the benchmark: every applicable (data set, method) pair, every
// seed (and every class under the class protocol), one task at a time (the
// methods use every core themselves, and timings stay comparable). A
// method that fails or times out gives a marked Cell and the run goes on.
// The error is for an unknown method, an unreadable data set, or ctx
// cancelled (the Result then holds the cells done so far).
func Run(ctx context.Context, cfg Config) (*Result, error) {
	methods := cfg.Methods
	if len(methods) == 0 {
		methods = detector.Names()
	}
	for _, m := range methods {
		if _, ok := detector.Lookup(m); !ok {
			return nil, fmt.Errorf("bench: unknown method %q (available: %s)", m, strings.Join(detector.Names(), ", "))
		}
	}
	for m, ps := range cfg.Params {
		if !slices.Contains(methods, m) {
			return nil, fmt.Errorf("bench: parameters given for %q, which is not among the methods run", m)
		}
		if _, err := detector.New(m, ps); err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
	}
	seeds := cfg.Seeds
	if len(seeds) == 0 {
		seeds = DefaultSeeds
	}
	for _, s := range seeds {
		if s > math.MaxUint32 {
			return nil, fmt.Errorf("bench: seed %d must be below 2^32", s)
		}
	}
	refs := cfg.Data
	if len(refs) == 0 {
		refs = Embedded()
	}
	runner := cfg.Runner
	if runner == nil {
		runner = InProcess()
	}
	var plans []plan
	total := 0
	for _, ref := range refs {
		p, err := inspect(ref)
		if err != nil {
			return nil, err
		}
		plans = append(plans, p)
		runtime.GC() // drop the inspected copy before the runs
		per := len(seeds)
		if p.classes != nil {
			per *= len(p.classes)
		}
		for _, m := range methods {
			if p.tensor || !IsTensorMethod(m) {
				total += per
			}
		}
	}
	res := &Result{Seeds: seeds, Methods: methods, Params: cfg.Params, Timeout: cfg.Timeout.Seconds()}
	done := 0
	for _, p := range plans {
		for _, m := range methods {
			tm := IsTensorMethod(m)
			if tm && !p.tensor {
				continue
			}
			cell := Cell{Data: DataName(p.ref), Ref: p.ref, Method: m, Protocol: "adbench", Input: "vector"}
			switch {
			case tm:
				cell.Input = "tensor"
			case p.tensor:
				cell.Input = "flat"
			}
			classes := []int{-1}
			if p.classes != nil {
				classes, cell.Protocol = p.classes, "class"
			}
			for _, c := range classes {
				for _, s := range seeds {
					if err := ctx.Err(); err != nil {
						return res, err
					}
					t := Task{Data: p.ref, Method: m, Params: cfg.Params[m], Seed: s, Class: c, KeepScores: cfg.KeepScores}
					o := runner(ctx, t, cfg.Timeout)
					cell.Trials = append(cell.Trials, Trial{Task: t, Outcome: o})
					done++
					if cfg.Progress != nil {
						cfg.Progress("bench "+cell.Data+" "+m, done, total)
					}
				}
			}
			summarise(&cell)
			res.Cells = append(res.Cells, cell)
		}
	}
	return res, nil
}

// summarise fills a cell's medians and counts from its runs.
func summarise(c *Cell) {
	var auc, ap, fit, score, mem []float64
	c.OK, c.Failed, c.TimedOut, c.Err = 0, 0, 0, ""
	for _, r := range c.Trials {
		o := r.Outcome
		switch {
		case o.TimedOut:
			c.TimedOut++
		case o.Err != "":
			c.Failed++
		default:
			c.OK++
			auc = append(auc, o.AUC)
			ap = append(ap, o.AP)
			fit = append(fit, o.FitSeconds)
			score = append(score, o.ScoreSeconds)
			mem = append(mem, float64(o.PeakBytes))
		}
		if !o.OK() && c.Err == "" {
			c.Err = o.Err
		}
	}
	c.AUC, c.AP = Median(auc), Median(ap)
	c.FitSeconds, c.ScoreSeconds = Median(fit), Median(score)
	if m := Median(mem); !math.IsNaN(m) {
		c.PeakBytes = int64(m)
	}
}

// Median returns the median of v (the mean of the two middle values for an
// even count), NaN for an empty v. v is not modified.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
