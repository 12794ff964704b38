package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/kernelad/anomaly/bench"
	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/output"
	"github.com/spf13/cobra"
)

type benchOptions struct {
	methods   string
	data      string
	seeds     string
	format    string
	plotDir   string
	report    string
	timeout   time.Duration
	sets      []string
	protocol  string
	stats     bool
	inProcess bool
	maxMemory string
}

const benchLong = `Run detection methods on data sets under one protocol and print, for every
(data set, method) pair, the median over seeds of AUC-ROC, average precision
(AP), fit seconds, score seconds and peak memory.

Protocol (ADBench; dataset.SplitADBench): a data set with more than 10,000
rows is first cut to a stratified subsample of 10,000 rows; then a 70/30
stratified train/test split; min-max scaling fit on the train part and
applied to both. Both draws replay scikit-learn's train_test_split with
random_state = seed, so the rows are those of the reference figures in
shared/anchors/RESULTS.md. Each method is fit unsupervised on the whole
train part (anomalies included, labels unused) and scores the test part.

Data sets labelled by class instead of anomaly (the tensor .npz files) use
the class protocol: each class in turn is normal, anomalies are drawn from
the other classes until they make up 5% of the set (at least 2), and the set
then goes through the protocol above; the cell is the median over classes
and seeds. Tensor methods (those with a shape parameter) get the sample
shape and run only on tensor data; every other method runs on the flattened
rows of tensor data ("flat" in the input column), side by side.

Memory: the runs (one method, data set, seed and class each) go to a
child process running this program ("anomaly bench-task"), one after the
other; before each run the child returns its freed memory to the system
and resets its peak resident set size (Linux), so the figure is the run's
own peak (VmHWM from /proc/self/status): the Go runtime, the run's split
of the data and what the method allocates. Where the peak cannot be reset
each run gets a fresh process (getrusage ru_maxrss). --in-process runs
everything in this process instead and reports the peak of live Go heap
objects.

A run that fails or exceeds --timeout (its process is killed, and the next
run starts another) gives a
marked cell ("failed", "timeout"; "partial" when some seeds finished) and
the benchmark goes on. With no --data, the data sets embedded in the binary
are used (see dataset/embedded for their sources and citations), every
method at its defaults; "all" in --methods means every registered method.

--data takes files, directories (every data file directly inside) and
embedded:NAME for an embedded data set.
--stats adds, per metric (AUC-ROC, AP, fit and score time), the average rank
of every method with Friedman's and Iman–Davenport's tests and the Nemenyi
critical difference, and pairwise Wilcoxon signed-rank tests (W+, W−, p and
Holm-adjusted p), as the R1STM paper reports them; methods without a figure
on every data set (tensor methods on vector data) are left out of the ranks.
--protocol raw skips the min-max scaling step: the methods see each data
set in its own units, as a user's file gives them.
--set METHOD.KEY=VALUE sets a method parameter for every run of that
method. --plot DIR writes ROC and PR curves per data set (first seed; first
class under the class protocol) as DIR/DATA_roc.png and DIR/DATA_pr.png.

Formats: table (aligned text), csv, json (every run), markdown (the README's
results table: an AUC matrix and the long table).`

func newBenchCmd(stdout, stderr io.Writer) *cobra.Command {
	var o benchOptions
	c := &cobra.Command{
		Use:   "bench [--methods a,b|all] [--data f1,f2] [--seeds 1,2,3] [--format table|csv|json|markdown] [--stats] [--protocol adbench|raw] [--plot DIR]",
		Short: "Benchmark methods on data sets (ADBench protocol): AUC, AP, time, memory",
		Long:  benchLong,
		Example: `  anomaly bench
  anomaly bench --methods expose,ocsvm --data ../shared/data/adbench --format csv
  anomaly bench --data ../shared/data/tensor/natops.npz --seeds 1 --timeout 2m --plot out/`,
		Args: noArgs,
	}
	c.RunE = runE(func(ctx context.Context) error {
		return runBench(ctx, o, c.Flags().Changed("data"), stdout, stderr)
	})
	f := c.Flags()
	f.StringVar(&o.methods, "methods", "all", "comma-separated method names, or all")
	f.StringVar(&o.data, "data", "", "comma-separated data files or directories (default: the embedded data sets)")
	f.StringVar(&o.seeds, "seeds", "1,2,3", "comma-separated seeds (below 2^32)")
	f.StringVar(&o.format, "format", "table", "table, csv, json or markdown")
	f.BoolVar(&o.stats, "stats", false, "add the statistics: average ranks with Friedman's test and the Nemenyi critical difference, pairwise Wilcoxon signed-rank tests with Holm's correction (AUC-ROC, AP, fit and score time)")
	f.StringVar(&o.protocol, "protocol", "adbench", "adbench (min-max scaling fit on the train part) or raw (the data in its own units, as users bring it)")
	f.StringVar(&o.plotDir, "plot", "", "directory for ROC and PR curves (PNG)")
	f.StringVar(&o.report, "report", "", "write one self-contained HTML report (tables, statistics, pictures inlined) to this file")
	f.DurationVar(&o.timeout, "timeout", 0, "time limit of each run (its process: loading, split, fit and score), as in 90s or 5m; 0 = none")
	f.StringArrayVar(&o.sets, "set", nil, "method parameter METHOD.KEY=VALUE (repeatable)")
	f.BoolVar(&o.inProcess, "in-process", false, "run in this process (memory: peak Go heap instead of per-run RSS; a timed-out run keeps running in the background)")
	f.StringVar(&o.maxMemory, "max-memory", "", "memory each run may plan to use, as in 4GB (default: 75% of the machine's, the container's or the address-space limit); a data file or a run over it is reported, not run")
	return c
}

// runBench is the bench command: check the flags and the data files,
// prepare the outputs and the runner, run the benchmark, and write the
// results, the report, the pictures and a summary.
func runBench(ctx context.Context, o benchOptions, hasData bool, stdout, stderr io.Writer) error {
	// SIGINT and SIGTERM cancel ctx, which kills the running task's process.
	ctx, stop := stopSignals(ctx)
	defer stop()
	cfg, source, err := o.config(hasData)
	if err != nil {
		return err
	}
	if err := checkBenchData(ctx, cfg.Data, cfg.MaxBytes, source); err != nil {
		return err
	}
	report, cleanup, err := o.prepare(ctx, &cfg)
	defer cleanup()
	if err != nil {
		return err
	}
	var bar *progressBar
	if isTerminal(stderr) {
		bar = newProgressBar(stderr)
		cfg.Progress = bar.update
	}
	interrupted := &exitError{ExitInterrupted, errors.New("bench interrupted")}
	start := time.Now()
	res, err := bench.Run(ctx, cfg)
	bar.done()
	if err != nil {
		return benchErr(ctx, err, source, interrupted)
	}
	elapsed := time.Since(start)
	if o.stats {
		res.Stats = bench.Compare(res)
	}
	// The results and the report come first, the pictures after: a
	// --plot directory on a full disk lost the whole table (exit 3 with
	// nothing on standard output, though every run had finished).
	if err := o.write(ctx, stdout, stderr, res, report, interrupted); err != nil {
		return err
	}
	return o.finish(ctx, stderr, res, cfg.Data, elapsed)
}

// config reads the flags into a bench configuration, and returns it with
// the source of the memory budget (for the messages of a data file over
// it).
func (o benchOptions) config(hasData bool) (cfg bench.Config, source string, err error) {
	cfg = bench.Config{Timeout: o.timeout}
	if o.timeout < 0 {
		return cfg, "", usagef("--timeout %v must be ≥ 0", o.timeout)
	}
	if cfg.MaxBytes, source, err = memoryBudget(o.maxMemory); err != nil {
		return cfg, "", err
	}
	switch o.protocol {
	case "adbench":
	case "raw":
		cfg.Raw = true
	default:
		return cfg, "", usagef("--protocol %q: want adbench or raw", o.protocol)
	}
	switch o.format {
	case "table", "csv", "json", "markdown":
	default:
		return cfg, "", usagef("--format %q: want table, csv, json or markdown", o.format)
	}
	if o.stats && o.format == "csv" {
		return cfg, "", usagef("--stats has no csv form; use --format table, markdown or json")
	}
	if err := o.methodsSeedsSets(&cfg); err != nil {
		return cfg, "", err
	}
	if hasData {
		cfg.Data, err = expandData(o.data)
	}
	return cfg, source, err
}

// methodsSeedsSets reads --methods, --seeds and --set into cfg.
func (o benchOptions) methodsSeedsSets(cfg *bench.Config) (err error) {
	if o.methods != "all" {
		if cfg.Methods, err = parseMethods(o.methods); err != nil {
			return err
		}
	}
	methods := cfg.Methods
	if methods == nil {
		methods = detector.Names()
	}
	for _, s := range splitList(o.seeds) {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil || v > math.MaxUint32 {
			return usagef("--seeds: %q is not a seed (an integer in [0, 2^32))", s)
		}
		if slices.Contains(cfg.Seeds, v) {
			return usagef("--seeds: %d is listed twice (its runs would count twice in the medians)", v)
		}
		cfg.Seeds = append(cfg.Seeds, v)
	}
	if len(cfg.Seeds) == 0 {
		return usagef("--seeds: no seed given")
	}
	params, err := benchSets(o.sets, methods)
	if err != nil {
		return err
	}
	if len(params) > 0 {
		cfg.Params = params
	}
	return nil
}

// checkBenchData checks the --data files before any run: no file twice
// (by name or through a link), no two of one name, and each readable
// within the memory budget.
func checkBenchData(ctx context.Context, data []string, maxBytes int64, source string) error {
	names := map[string]string{}
	var seen []os.FileInfo
	for _, ref := range data {
		// Two files of one name would share a table row's label
		// and --plot's pictures (the second overwrote the first);
		// one file under two names (a link) would count twice.
		name := bench.DataName(ref)
		st, _ := os.Stat(ref)
		same := st != nil && slices.ContainsFunc(seen, func(s os.FileInfo) bool { return os.SameFile(s, st) })
		if prev, ok := names[name]; ok && prev == ref || same {
			return usagef("--data: %s is listed twice, by name or through a link (its runs would count twice in the medians)", ref)
		} else if ok {
			return usagef("--data: %s and %s have the same name %q, which the table and --plot's pictures use; rename one of them, or link it under another name", prev, ref, name)
		}
		names[name] = ref
		if st != nil {
			seen = append(seen, st)
		}
		// Read under the budget, as the runs will: before, every
		// file was read whole here first (a 4 GiB .csv.gz ran out
		// of memory under --max-memory 200MB).
		// Beside the signals: a named pipe no one writes blocks
		// in open(2), which looks at no context.
		_, err := beside(ctx, func() (*dataset.Dataset, error) { return bench.OpenWithin(ref, maxBytes) })
		if ctx.Err() != nil {
			return &exitError{ExitInterrupted, errors.New("bench interrupted")}
		}
		if err != nil {
			if oe := overBudgetErr(err, source); oe != nil {
				return oe
			}
			return dataFileErr(ref, err)
		}
	}
	return nil
}

// prepare makes the --plot directory, opens (and checks) the --report
// output, and sets up the worker processes and the directory of the
// splits unless --in-process. cleanup undoes what was set up, whether or
// not err is nil.
func (o benchOptions) prepare(ctx context.Context, cfg *bench.Config) (report *output.File, cleanup func(), err error) {
	var undo []func()
	cleanup = func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	if o.plotDir != "" {
		if err := os.MkdirAll(o.plotDir, 0o755); err != nil {
			return nil, cleanup, internalErr(fmt.Errorf("--plot %s: %v", o.plotDir, output.Unwrap(err)))
		}
		cfg.KeepScores = true
	}
	if report, err = o.openReport(ctx, cfg.Data); err != nil {
		return nil, cleanup, err
	}
	if report != nil {
		undo = append(undo, report.Abort)
		cfg.KeepScores = true
	}
	if o.inProcess {
		return report, cleanup, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, cleanup, internalErr(fmt.Errorf("bench: cannot find this program to run each task: %v (use --in-process)", err))
	}
	run, stop := workerRunner(exe)
	undo = append(undo, stop)
	cfg.Runner = run
	// Each split is written once and read by every method's process.
	removeStaleSplitDirs()
	dir, err := os.MkdirTemp("", fmt.Sprintf("anomaly-bench-%d-", os.Getpid()))
	if err != nil {
		return nil, cleanup, internalErr(fmt.Errorf("bench: temporary directory for the splits: %v", err))
	}
	undo = append(undo, func() { os.RemoveAll(dir) })
	cfg.SplitDir = dir
	return report, cleanup, nil
}

// openReport opens the --report output before any work (it must not be
// one of the data files), or returns nil without --report.
func (o benchOptions) openReport(ctx context.Context, data []string) (*output.File, error) {
	if ext := strings.ToLower(filepath.Ext(o.report)); o.report != "" && o.report != "-" && ext != ".html" && ext != ".htm" {
		// A report replaced whatever file it was named: --report m.bin
		// wrote HTML over a model. A device or pipe is written in place.
		if st, err := os.Stat(o.report); err != nil || st.Mode().IsRegular() {
			return nil, usagef("--report %q: the report is an HTML file; name it .html", o.report)
		}
	}
	if o.report == "" {
		return nil, nil
	}
	return createOutput(ctx, o.report, nil, nil, data...)
}

// benchErr classifies an error of bench.Run.
func benchErr(ctx context.Context, err error, source string, interrupted error) error {
	if ctx.Err() != nil {
		return interrupted
	}
	if e := overBudgetErr(err, source); e != nil {
		return e
	}
	var de *dataset.Error
	if errors.As(err, &de) {
		return dataErr(err) // a data file that cannot be read is bad data
	}
	return usageErr(err)
}

// memory says what the memory column measures.
func (o benchOptions) memory() string {
	if o.inProcess {
		return "peak Go heap"
	}
	return "peak RSS of the run's process"
}

// write writes the results to stdout in --format, then the --report.
func (o benchOptions) write(ctx context.Context, stdout, stderr io.Writer, res *bench.Result, report *output.File, interrupted error) error {
	var err error
	switch o.format {
	case "table":
		err = writeBenchTable(stdout, res, o.memory())
		if err == nil && o.stats {
			err = writeBenchStats(stdout, res.Stats, false)
		}
	case "csv":
		err = writeBenchCSV(stdout, res)
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", " ")
		err = enc.Encode(res)
	case "markdown":
		err = writeBenchMarkdown(stdout, res, o.memory())
		if err == nil && o.stats {
			err = writeBenchStats(stdout, res.Stats, true)
		}
	}
	if err != nil {
		return internalErr(fmt.Errorf("writing the results: %w", err))
	}
	if report == nil {
		return nil
	}
	if err := writeReport(report, res, o.memory()); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return interrupted
	}
	if err := commitOutput(report); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "bench: wrote the report %s\n", o.report)
	return nil
}

// finish draws the --plot pictures, writes the one-line summary to stderr
// and returns the error of the pictures, or of a benchmark none of whose
// runs finished.
func (o benchOptions) finish(ctx context.Context, stderr io.Writer, res *bench.Result, data []string, elapsed time.Duration) error {
	var plotErr error
	if o.plotDir != "" {
		plotErr = benchPlots(ctx, res, o.plotDir, data)
		if ctx.Err() != nil {
			// The results are out; the pictures stopped at a whole one.
			return &exitError{ExitInterrupted, fmt.Errorf("bench interrupted while drawing the pictures in %s; the results were written", o.plotDir)}
		}
	}
	runs := countRuns(res)
	summary := fmt.Sprintf("bench: %d cells, %d runs in %.1f s", len(res.Cells), runs.total, elapsed.Seconds())
	// A failed run showed only in its cell ("0/1 failed").
	var bad []string
	if runs.failed > 0 {
		bad = append(bad, fmt.Sprintf("%d failed", runs.failed))
	}
	if runs.timedOut > 0 {
		bad = append(bad, fmt.Sprintf("%d timed out", runs.timedOut))
	}
	if len(bad) > 0 {
		summary += "; " + strings.Join(bad, ", ") + " (see the table)"
	}
	fmt.Fprintln(stderr, summary)
	if plotErr != nil {
		return plotErr
	}
	return allFailedErr(res, runs)
}

// runCounts counts the runs of a bench result: all of them, those that
// failed and those that timed out.
type runCounts struct {
	total, failed, timedOut int
}

func countRuns(res *bench.Result) runCounts {
	var n runCounts
	for _, c := range res.Cells {
		n.total += len(c.Trials)
		for _, t := range c.Trials {
			switch {
			case t.Outcome.TimedOut:
				n.timedOut++
			case !t.Outcome.OK():
				n.failed++
			}
		}
	}
	return n
}

// allFailedErr is the error of a bench run none of whose runs finished
// (it printed every cell as "0/1 failed" and exited 0): the first
// failure, bad data (exit 2) when the data caused it, otherwise exit 3.
// Nil when some run finished.
func allFailedErr(res *bench.Result, runs runCounts) error {
	if runs.total == 0 || runs.failed+runs.timedOut < runs.total {
		return nil
	}
	for _, c := range res.Cells {
		for _, t := range c.Trials {
			o := t.Outcome
			if o.OK() {
				continue
			}
			err := fmt.Errorf("every run failed (%d of %d); the first, %s/%s: %s", runs.total, runs.total, c.Data, c.Method, oneLine(o.Err))
			if o.DataErr {
				return dataErr(err)
			}
			return internalErr(err)
		}
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// parseMethods reads a --methods list (not "all"): registered methods,
// each once, at least one.
func parseMethods(list string) ([]string, error) {
	var methods []string
	for _, m := range splitList(list) {
		if _, ok := detector.Lookup(m); !ok {
			return nil, unknownMethod("--methods: ", m)
		}
		if slices.Contains(methods, m) {
			return nil, usagef("--methods: %s is listed twice", m)
		}
		methods = append(methods, m)
	}
	if len(methods) == 0 {
		return nil, usagef("--methods: no method given (a list, or all)")
	}
	return methods, nil
}

// benchSets parses --set METHOD.KEY=VALUE.
func benchSets(sets []string, methods []string) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	for _, s := range sets {
		kv, v, ok := strings.Cut(s, "=")
		m, k, ok2 := strings.Cut(strings.TrimSpace(kv), ".")
		if !ok || !ok2 || m == "" || k == "" {
			return nil, usagef("--set %q: want METHOD.KEY=VALUE, as in --set ocsvm.nu=0.1", s)
		}
		if !slices.Contains(methods, m) {
			return nil, usagef("--set %q: method %s is not among the methods run", s, m)
		}
		if out[m] == nil {
			out[m] = map[string]string{}
		}
		if _, dup := out[m][k]; dup {
			return nil, usagef("--set %s.%s is given twice", m, k)
		}
		out[m][k] = strings.TrimSpace(v)
	}
	// Check the parameters once, before any run: by building a detector,
	// or for a tensor method given no shape (each data set has its own)
	// by parsing them, as New refuses it without one.
	for m, ps := range out {
		err := error(nil)
		if meth, _ := detector.Lookup(m); meth.Has("shape") && ps["shape"] == "" {
			err = meth.Check(ps)
		} else {
			_, err = detector.New(m, ps)
		}
		if err != nil {
			return nil, usageErr(err)
		}
	}
	return out, nil
}

// expandData turns --data into data set references: files as given,
// directories into their data files (by extension, not recursive, sorted).
func expandData(s string) ([]string, error) {
	var refs []string
	for _, p := range splitList(s) {
		st, err := os.Stat(p)
		if err != nil || !st.IsDir() {
			refs = append(refs, p) // Open reports a missing file
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, dataErr(fmt.Errorf("%s: %v", p, output.Unwrap(err)))
		}
		var found []string
		for _, e := range ents {
			if !e.IsDir() && dataset.Supported(e.Name()) {
				found = append(found, filepath.Join(p, e.Name()))
			}
		}
		if len(found) == 0 {
			return nil, dataErr(fmt.Errorf("%s: no data files in the directory", p))
		}
		sort.Slice(found, func(i, j int) bool { return bench.NaturalLess(filepath.Base(found[i]), filepath.Base(found[j])) })
		refs = append(refs, found...)
	}
	if len(refs) == 0 {
		return nil, usagef("--data: no data set given")
	}
	return refs, nil
}

// benchChildEnv lets a test binary stand in for the program in the child
// (see TestMain); the anomaly binary ignores it.
const benchChildEnv = "ANOMALY_CLI_MAIN=1"

// newBenchTaskCmd is the hidden child command of workerRunner: with
// --serve it runs tasks until its input ends (serveTasks); without, one
// task (JSON on stdin, outcome as JSON on stdout).
func newBenchTaskCmd(stdout io.Writer) *cobra.Command {
	c := &cobra.Command{
		Use:    "bench-task",
		Short:  "Run benchmark tasks (JSON on stdin, outcomes as JSON on stdout); used by bench",
		Hidden: true,
		Args:   noArgs,
	}
	serve := c.Flags().Bool("serve", false, "run tasks until the input ends, each reply {outcome, last}")
	c.RunE = runE(func(ctx context.Context) error {
		if *serve {
			return serveTasks(ctx, c.InOrStdin(), stdout)
		}
		var t bench.Task
		if err := json.NewDecoder(c.InOrStdin()).Decode(&t); err != nil {
			return usagef("bench-task: reading the task: %v", err)
		}
		o := runBenchTask(ctx, t)
		if rss := selfPeakRSS(); rss > 0 {
			o.PeakBytes, o.Memory = rss, "rss"
		}
		if err := json.NewEncoder(stdout).Encode(o); err != nil {
			return internalErr(err)
		}
		return nil
	})
	return c
}

// Formatting.

func fmtFloat(v float64, prec int) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

func fmtSeconds(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func fmtMB(b int64) string {
	if b <= 0 {
		return "-"
	}
	return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64)
}

func cellRuns(c *bench.Cell) string {
	s := fmt.Sprintf("%d/%d", c.OK, len(c.Trials))
	if st := c.Status(); st != "ok" {
		s += " " + st
	}
	return s
}

// benchHeader describes the run in a few lines.
func benchHeader(res *bench.Result, mem string) []string {
	seeds := make([]string, len(res.Seeds))
	for i, s := range res.Seeds {
		seeds[i] = strconv.FormatUint(s, 10)
	}
	scaling := "min-max scaling fit on train"
	if res.Raw {
		scaling = "raw: no scaling, the data in its own units"
	}
	h := []string{
		"ADBench protocol (70/30 stratified split, " + scaling + "; 10,000-row subsample above that); class protocol for class-labelled data (each class normal in turn, 5% anomalies from the others)",
		fmt.Sprintf("median over seeds %s (and classes); memory: %s", strings.Join(seeds, ","), mem),
	}
	if res.Timeout > 0 {
		h = append(h, fmt.Sprintf("timeout per run: %gs", res.Timeout))
	}
	var ps []string
	for m, kv := range res.Params {
		var keys []string
		for k := range kv {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ps = append(ps, m+"."+k+"="+kv[k])
		}
	}
	sort.Strings(ps)
	if len(ps) > 0 {
		h = append(h, "parameters set: "+strings.Join(ps, " "))
	}
	return h
}

// cellColumns names the columns of a cell's line in the text and Markdown
// tables, and cellFields gives them.
var cellColumns = []string{"data", "method", "input", "AUC", "AP", "fit s", "score s", "peak MB", "runs"}

func cellFields(c *bench.Cell) []string {
	return []string{c.Data, c.Method, c.Input, fmtFloat(c.AUC, 3), fmtFloat(c.AP, 3),
		fmtSeconds(c.FitSeconds), fmtSeconds(c.ScoreSeconds), fmtMB(c.PeakBytes), cellRuns(c)}
}

func writeBenchTable(w io.Writer, res *bench.Result, mem string) error {
	for _, l := range benchHeader(res, mem) {
		fmt.Fprintln(w, "# "+l)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(cellColumns, "\t"))
	for i := range res.Cells {
		fmt.Fprintln(tw, strings.Join(cellFields(&res.Cells[i]), "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return writeFailures(w, res, "# ")
}

// writeFailures lists the first error of every cell that has one.
func writeFailures(w io.Writer, res *bench.Result, prefix string) error {
	for i := range res.Cells {
		c := &res.Cells[i]
		if c.Err != "" {
			if _, err := fmt.Fprintf(w, "%s%s/%s: %s\n", prefix, c.Data, c.Method, oneLine(c.Err)); err != nil {
				return err
			}
		}
	}
	return nil
}

func writeBenchCSV(w io.Writer, res *bench.Result) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"data", "method", "protocol", "input", "auc", "ap", "fit_seconds", "score_seconds", "peak_bytes", "runs", "ok", "failed", "timed_out", "status", "error"})
	num := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	for i := range res.Cells {
		c := &res.Cells[i]
		cw.Write([]string{c.Data, c.Method, c.Protocol, c.Input, num(c.AUC), num(c.AP), num(c.FitSeconds), num(c.ScoreSeconds),
			strconv.FormatInt(c.PeakBytes, 10), strconv.Itoa(len(c.Trials)), strconv.Itoa(c.OK), strconv.Itoa(c.Failed),
			strconv.Itoa(c.TimedOut), c.Status(), oneLine(c.Err)})
	}
	cw.Flush()
	return cw.Error()
}

// writeBenchMarkdown writes the README's results: an AUC matrix (data
// sets × methods) and the long table.
func writeBenchMarkdown(w io.Writer, res *bench.Result, mem string) error {
	for _, l := range benchHeader(res, mem) {
		fmt.Fprintln(w, l+"  ")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Median AUC-ROC (a mark where no run finished; flat = vector method on flattened tensor rows; blank = tensor method on vector data, not run):\n\n")
	fmt.Fprintf(w, "| data | %s |\n|---|%s\n", mdRow(res.Methods), strings.Repeat("---|", len(res.Methods)))
	for _, row := range aucMatrix(res) {
		fmt.Fprintf(w, "| %s |\n", mdRow(row))
	}
	fmt.Fprintf(w, "\n| %s |\n|%s\n", mdRow(cellColumns), strings.Repeat("---|", len(cellColumns)))
	for i := range res.Cells {
		fmt.Fprintf(w, "| %s |\n", mdRow(cellFields(&res.Cells[i])))
	}
	var fails bytes.Buffer
	writeFailures(&fails, res, "- ")
	if fails.Len() > 0 {
		fmt.Fprintf(w, "\nFailures:\n\n%s", fails.String())
	}
	return nil
}

// mdRow joins the cells of a Markdown table row, each | in a cell escaped
// as \| (a data file named a|b.npz split its row into one cell more).
func mdRow(cells []string) string {
	esc := make([]string, len(cells))
	for i, c := range cells {
		esc[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	return strings.Join(esc, " | ")
}

// writeBenchStats writes the comparisons of bench.Compare: per metric the
// average ranks (as the R1STM paper's Figure 3) with Friedman's and Iman
// and Davenport's tests and the Nemenyi critical difference, then the
// pairwise Wilcoxon tests (as its Table 4). md selects Markdown tables.
func writeBenchStats(w io.Writer, cmps []bench.Comparison, md bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(cells ...string) {
		if md {
			fmt.Fprintf(w, "| %s |\n", mdRow(cells))
		} else {
			fmt.Fprintln(tw, "  "+strings.Join(cells, "\t"))
		}
	}
	rule := func(n int) {
		if md {
			fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", n))
		}
	}
	for _, c := range cmps {
		fmt.Fprintln(w)
		if c.Err != "" {
			fmt.Fprintf(w, "%s: no statistics (%s)\n", c.Metric, c.Err)
			continue
		}
		fr := c.Friedman
		fmt.Fprintf(w, "%s: average ranks over %d data sets (1 = best); Friedman χ²_F = %s, p = %s; Iman–Davenport F = %s, p = %s; Nemenyi critical difference %.3f at α = %g\n",
			c.Metric, fr.N, fmtStat(fr.ChiSq), fmtStat(fr.P), fmtF(fr.F), fmtStat(fr.PF), c.CD, bench.Alpha)
		if len(c.Dropped) > 0 {
			fmt.Fprintf(w, "(not ranked, no figure on every data set: %s)\n", strings.Join(c.Dropped, ", "))
		}
		if md {
			fmt.Fprintln(w)
		}
		row("method", "average rank")
		rule(2)
		for _, i := range rankOrder(fr.AvgRank) {
			row(c.Methods[i], strconv.FormatFloat(fr.AvgRank[i], 'f', 2, 64))
		}
		tw.Flush()
		fmt.Fprintf(w, "\n%s: Wilcoxon signed-rank tests, W+ summing the ranks of the data sets where the first method's figure is higher, W− where it is lower; p two-sided, Holm-adjusted over all pairs\n", c.Metric)
		if md {
			fmt.Fprintln(w)
		}
		row("method", "vs", "W+", "W−", "p", "p (Holm)")
		rule(6)
		for _, pr := range c.Pairs {
			row(c.Methods[pr.I], c.Methods[pr.J], strconv.FormatFloat(pr.WPlus, 'f', -1, 64), strconv.FormatFloat(pr.WMinus, 'f', -1, 64), fmtStat(pr.P), fmtStat(pr.PHolm))
		}
		tw.Flush()
	}
	return nil
}

// aucMatrix returns the rows of the median AUC-ROC matrix of a bench run:
// one per data set, the data set's name then a cell per method ("" for a
// tensor method on vector data, the status where no run finished, a
// "(flat)" or "(partial)" mark where it applies).
func aucMatrix(res *bench.Result) [][]string {
	var datas []string
	byKey := map[[2]string]*bench.Cell{}
	for i := range res.Cells {
		c := &res.Cells[i]
		if !slices.Contains(datas, c.Data) {
			datas = append(datas, c.Data)
		}
		byKey[[2]string{c.Data, c.Method}] = c
	}
	var rows [][]string
	for _, d := range datas {
		row := []string{d}
		for _, m := range res.Methods {
			c := byKey[[2]string{d, m}]
			switch {
			case c == nil:
				row = append(row, "")
			case c.OK == 0:
				row = append(row, c.Status())
			default:
				s := fmtFloat(c.AUC, 3)
				if c.Input == "flat" {
					s += " (flat)"
				}
				if c.Status() == "partial" {
					s += " (partial)"
				}
				row = append(row, s)
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// fmtStat writes a statistic or p-value to 3 significant digits, "–" where
// it is undefined (NaN).
func fmtStat(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// fmtF is fmtStat for Iman–Davenport's F, whose denominator is 0 when
// every data set ranks the methods alike: F is then +Inf, and says why.
func fmtF(v float64) string {
	if math.IsInf(v, 1) {
		return "+Inf (every data set ranks the methods alike)"
	}
	return fmtStat(v)
}

// rankOrder returns the method indices sorted by average rank, best first
// (ties keep the methods' order).
func rankOrder(avg []float64) []int {
	order := make([]int, len(avg))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return avg[order[a]] < avg[order[b]] })
	return order
}

// removeStaleSplitDirs removes the split directories of bench runs that
// were killed (SIGKILL, the out-of-memory killer) before they could remove
// them: copies of the user's data left in the temporary directory. A
// directory is named anomaly-bench-PID-*; it is stale when no process PID
// exists (kill(PID, 0) says ESRCH), which a live run, and another user's,
// never is.
func removeStaleSplitDirs() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "anomaly-bench-*-*"))
	for _, d := range dirs {
		rest := strings.TrimPrefix(filepath.Base(d), "anomaly-bench-")
		pid, err := strconv.Atoi(rest[:max(strings.IndexByte(rest, '-'), 0)])
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			os.RemoveAll(d)
		}
	}
}
