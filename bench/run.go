package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/detector"
)

// DefaultSeeds are the seeds of a run whose Config.Seeds is empty: the
// seeds of the reference figures in shared/anchors/RESULTS.md.
var DefaultSeeds = []uint64{1, 2, 3}

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
			ds, err := OpenWithin(t.Data, t.MaxBytes)
			if err != nil {
				mu.Unlock()
				return Outcome{Err: err.Error(), DataErr: true}
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
	// Raw runs the protocol without its min-max scaling step (Task.Raw):
	// --protocol raw, the data as users bring it.
	Raw bool
	// Progress, if not nil, is called after every task with stage
	// "bench DATA METHOD", the tasks done and the total.
	Progress func(stage string, done, total int)
	// MaxBytes, when positive, is the memory budget: a data file whose
	// values pass it is not read, and each task's fit and score are
	// checked against it (Task.MaxBytes).
	MaxBytes int64
	// SplitDir, when set, is a directory where Run writes each (data set,
	// class, seed) split once and hands it to every method's task in
	// Task.Split (a process-per-task runner then reads a few thousand rows
	// instead of reloading the data file per task). Run removes the files
	// when a data set's runs are done.
	SplitDir string
}

// Cell is the result of one method on one data set: medians over the runs
// that finished.
type Cell struct {
	Data   string `json:"data"`   // short data set name (DataName)
	Ref    string `json:"ref"`    // data set reference
	Method string `json:"method"` // method name
	// Protocol is "adbench" or "class" (class protocol, median over every
	// class in turn and every seed), with " raw" appended when the split
	// skipped min-max scaling (Config.Raw).
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
	Raw     bool                         `json:"raw,omitempty"` // Config.Raw
	Cells   []Cell                       `json:"cells"`
	// Stats holds the statistical comparison of the methods (Compare),
	// when the caller asked for it.
	Stats []Comparison `json:"stats,omitempty"`
}

// plan is one data set's place in a run.
type plan struct {
	ref     string
	tensor  bool
	classes []int            // class protocol when non-nil
	ds      *dataset.Dataset // kept from inspect for the splits, or nil
}

// keepBytes is how much inspected data Run keeps in memory for writing the
// splits (the data sets are then read once, not twice; the ADBench tables
// take about 60 MB in all); beyond it a data set is read again when its
// turn comes, so that the parent never holds more than this plus one set.
const keepBytes = 256 << 20

// inspect loads a data set to decide its protocol; the plan keeps the data
// when keep is true.
func inspect(ref string, keep bool, maxBytes int64) (plan, error) {
	ds, err := OpenWithin(ref, maxBytes)
	if err != nil {
		return plan{}, err
	}
	p := plan{ref: ref, tensor: ds.Shape != nil}
	if keep {
		p.ds = ds
	}
	if ds.Y == nil {
		if ds.Class == nil {
			return plan{}, &dataset.Error{Path: ref, Err: errors.New("no labels: bench measures each method against a label column (label or y) or a y array")}
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

// checkParams checks a method's parameters before any run by building a
// detector with them; a tensor method given no shape (each data set has
// its own) by parsing them, as New refuses it without one.
func checkParams(name string, ps map[string]string) error {
	if m, _ := detector.Lookup(name); m.Has("shape") && ps["shape"] == "" {
		return m.Check(ps)
	}
	_, err := detector.New(name, ps)
	return err
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
		if err := checkParams(m, ps); err != nil {
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
	kept := int64(0)
	for _, ref := range refs {
		p, err := inspect(ref, cfg.SplitDir != "" && len(methods) > 1 && kept < keepBytes, cfg.MaxBytes)
		if err != nil {
			return nil, err
		}
		if p.ds != nil {
			r, c := p.ds.X.Dims()
			if kept += int64(r) * int64(c) * 8; kept > keepBytes {
				p.ds = nil
			}
		}
		plans = append(plans, p)
		runtime.GC() // drop an inspected copy not kept before the runs
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
	res := &Result{Seeds: seeds, Methods: methods, Params: cfg.Params, Timeout: cfg.Timeout.Seconds(), Raw: cfg.Raw}
	done := 0
	for i, p := range plans {
		splits, err := prepareSplits(cfg, p, methods, seeds)
		p.ds, plans[i].ds = nil, nil // the splits hold what the runs need
		if err != nil {
			return res, err
		}
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
			if cfg.Raw {
				cell.Protocol += " raw"
			}
			for _, c := range classes {
				for _, s := range seeds {
					if err := ctx.Err(); err != nil {
						return res, err
					}
					t := Task{Data: p.ref, Method: m, Params: cfg.Params[m], Seed: s, Class: c, Raw: cfg.Raw, KeepScores: cfg.KeepScores,
						Split: splits[[2]int{c, int(s)}], MaxBytes: cfg.MaxBytes}
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
		for _, f := range splits {
			os.Remove(f)
		}
	}
	return res, nil
}

// prepareSplits writes the splits of data set p that more than one task
// shares (Config.SplitDir), keyed by (class, seed); nil without SplitDir.
func prepareSplits(cfg Config, p plan, methods []string, seeds []uint64) (map[[2]int]string, error) {
	if cfg.SplitDir == "" {
		return nil, nil
	}
	n := 0
	for _, m := range methods {
		if p.tensor || !IsTensorMethod(m) {
			n++
		}
	}
	if n < 2 {
		return nil, nil // one task per split: nothing to share
	}
	ds := p.ds
	if ds == nil {
		var err error
		if ds, err = OpenWithin(p.ref, cfg.MaxBytes); err != nil {
			return nil, nil // each task reports it
		}
	}
	classes := []int{-1}
	if p.classes != nil {
		classes = p.classes
	}
	out := map[[2]int]string{}
	for _, c := range classes {
		for _, s := range seeds {
			path, err := writeSplit(cfg.SplitDir, ds, c, s, cfg.Raw)
			if err != nil {
				for _, f := range out {
					os.Remove(f)
				}
				return nil, fmt.Errorf("bench: preparing the split of %s: %w", DataName(p.ref), err)
			}
			if path != "" {
				out[[2]int{c, int(s)}] = path
			}
		}
	}
	return out, nil
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
