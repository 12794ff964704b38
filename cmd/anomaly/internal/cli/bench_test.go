package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kernelad/anomaly/bench"
	kit "github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/param"
	"gonum.org/v1/gonum/mat"
)

// benchVec is a test-only vector method (no shape parameter): meandist's
// score, and parameters that make it fail or block, for the bench tests.
type benchVec struct {
	kit.Base[benchMean]
	fail, block bool
}

// benchMean is the training rows' mean.
type benchMean []float64

type benchVecConfig struct {
	Fail, Block bool
	Src         rand.Source
	kit.Common
}

func (c *benchVecConfig) Bind(s *param.Set) {
	s.Seed(&c.Src, "seed", 0, func(seed uint64) rand.Source { return rand.NewPCG(seed, 0) }, "accepted and unused")
	s.Switch(&c.Fail, "fail", "Fit fails")
	s.Switch(&c.Block, "block", "Fit ignores ctx and never returns")
}

func init() {
	kit.Register(kit.Info{Name: "benchvec", Summary: "test method: squared distance to the training mean (bench tests)", Version: 1},
		func(c benchVecConfig) (*benchVec, error) {
			d := &benchVec{fail: c.Fail, block: c.Block}
			b, err := kit.NewBase("benchvec", &c, kit.Hooks[benchMean]{Fit: d.fit, Decode: func([]byte, int) (benchMean, error) {
				return nil, errors.New("benchvec: not saved")
			}})
			d.Base = b
			return d, err
		}, func(*benchVec, kit.Op, kit.Size) float64 { return 0 })
}

func (d *benchVec) fit(ctx context.Context, f *kit.Fitting) (benchMean, []float64, error) {
	if d.fail {
		return nil, nil, errors.New("benchvec: asked to fail")
	}
	if d.block {
		select {} // a method that ignores ctx: only killing the process stops it
	}
	X, err := f.Matrix(ctx)
	if err != nil {
		return nil, nil, err
	}
	m := benchMean(testmat.ColMeans(X))
	r, _ := X.Dims()
	train := make([]float64, r)
	return m, train, m.Score(ctx, train, X)
}

func (m benchMean) Score(_ context.Context, dst []float64, X mat.Matrix) error {
	testmat.SqDists(dst, X, m)
	return nil
}

func (m benchMean) MarshalBinary() ([]byte, error) { return nil, errors.New("benchvec: not saved") }

// benchCSV has 57 normal rows on a small grid around (0.5, 0.5) and 3
// anomalies far away: squared distance to the mean ranks every anomaly
// first, so AUC and AP are 1 on any split.
func benchCSV(t *testing.T) string {
	var b strings.Builder
	b.WriteString("a,b,label\n")
	for i := 0; i < 57; i++ {
		fmt.Fprintf(&b, "%g,%g,0\n", 0.4+0.01*float64(i%7), 0.4+0.01*float64(i/7))
	}
	for i := 0; i < 3; i++ {
		fmt.Fprintf(&b, "%d,%d,1\n", 5+i, -5-i)
	}
	return write(t, filepath.Join(t.TempDir(), "grid.csv"), b.String())
}

func TestBenchInProcessCSV(t *testing.T) {
	data := benchCSV(t)
	code, out, stderr := run(context.Background(), "bench", "--methods", "benchvec,meandist", "--data", data,
		"--seeds", "1,2", "--format", "csv", "--in-process", "--set", "benchvec.seed=3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// meandist has a shape parameter: a tensor method, not run on vector
	// data. benchvec: every anomaly first (see benchCSV).
	if len(recs) != 2 {
		t.Fatalf("want a header and one cell, got %q", out)
	}
	row := map[string]string{}
	for i, h := range recs[0] {
		row[h] = recs[1][i]
	}
	want := map[string]string{"data": "grid", "method": "benchvec", "protocol": "adbench", "input": "vector",
		"auc": "1", "ap": "1", "runs": "2", "ok": "2", "status": "ok"}
	for k, v := range want {
		if row[k] != v {
			t.Errorf("%s = %q, want %q", k, row[k], v)
		}
	}
}

// Each run in its own process: a failing method and one that never returns
// (killed at the timeout) are marked, the good one has an RSS figure.
func TestBenchProcessFailTimeout(t *testing.T) {
	data := benchCSV(t)
	// The only run failing (or timing out) is every run failing: the
	// results are written, and the command fails with the first error
	// (it exited 0): exit 2 for a method refusing the data, as fit
	// classifies it, 3 for a timeout.
	for _, tc := range []struct {
		set, status string
		code        int
		stderr      string
	}{
		{"", "ok", ExitOK, "bench: 1 cells, 1 runs in"},
		{"benchvec.fail=true", "failed", ExitData, "anomaly: every run failed (1 of 1); the first, grid/benchvec: benchvec: asked to fail"},
		{"benchvec.block=true", "timeout", ExitInternal, "anomaly: every run failed (1 of 1); the first, grid/benchvec: over the timeout of 3s (killed)"},
	} {
		args := []string{"bench", "--methods", "benchvec", "--data", data, "--seeds", "1", "--format", "json", "--timeout", "3s"}
		if tc.set != "" {
			args = append(args, "--set", tc.set)
		}
		code, out, stderr := run(context.Background(), args...)
		if code != tc.code || !strings.Contains(stderr, tc.stderr) {
			t.Fatalf("%s: exit %d, want %d with %q: %s", tc.set, code, tc.code, tc.stderr, stderr)
		}
		var res bench.Result
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%s: %v\n%s", tc.set, err, out)
		}
		c := res.Cells[0]
		if c.Status() != tc.status {
			t.Errorf("%s: status %s, want %s (%s)", tc.set, c.Status(), tc.status, c.Err)
		}
		if tc.status == "ok" {
			o := c.Trials[0].Outcome
			if o.Memory != "rss" || o.PeakBytes <= 0 || o.AUC != 1 {
				t.Errorf("ok run: memory %q %d bytes, AUC %v", o.Memory, o.PeakBytes, o.AUC)
			}
		}
	}
}

// Class-labelled tensor data (the embedded basicmotions, 4 classes): the
// tensor method gets the shape, the vector method the flattened rows, and
// each runs once per class and seed.
func TestBenchClassProtocol(t *testing.T) {
	code, out, stderr := run(context.Background(), "bench", "--methods", "meandist,benchvec",
		"--data", "", "--seeds", "1", "--format", "json", "--in-process")
	if code == 0 {
		t.Fatalf("--data '' should be a usage error; got %s", out)
	}
	// No --data: the embedded sets; restrict to basicmotions through the
	// library, as the command would run it.
	res, err := bench.Run(context.Background(), bench.Config{Methods: []string{"meandist", "benchvec"},
		Data: []string{bench.EmbeddedPrefix + "basicmotions"}, Seeds: []uint64{1}})
	if err != nil {
		t.Fatal(err, stderr)
	}
	if len(res.Cells) != 2 {
		t.Fatalf("%d cells", len(res.Cells))
	}
	for _, c := range res.Cells {
		wantInput := map[string]string{"meandist": "tensor", "benchvec": "flat"}[c.Method]
		if c.Protocol != "class" || c.Input != wantInput || len(c.Trials) != 4 || c.Status() != "ok" {
			t.Errorf("%s: protocol %s input %s, %d trials, %s %s", c.Method, c.Protocol, c.Input, len(c.Trials), c.Status(), c.Err)
		}
	}
}

func TestBenchUsage(t *testing.T) {
	data := benchCSV(t)
	// A file of the same name in another directory (one label in the
	// table, one set of --plot pictures).
	other := filepath.Join(t.TempDir(), filepath.Base(data))
	if b, err := os.ReadFile(data); err != nil || os.WriteFile(other, b, 0o644) != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "grid-link.csv")
	os.Symlink(data, link)
	for _, args := range [][]string{
		{"bench", "--data", data + "," + data},
		{"bench", "--data", data + "," + link},
		{"bench", "--data", data + "," + other},
		{"bench", "--format", "xml"},
		{"bench", "--methods", "nosuch"},
		{"bench", "--seeds", "x"},
		{"bench", "--seeds", "4294967296"},
		{"bench", "--seeds", "1,1"},
		{"bench", "--methods", "benchvec,benchvec"},
		{"bench", "--methods", ""},
		{"bench", "--methods", "benchvec", "--set", "ocsvm.nu=0.1"},
		{"bench", "--methods", "benchvec", "--set", "benchvec.nosuch=1"},
		{"bench", "--methods", "benchvec", "--set", "nodot=1"},
		{"bench", "--timeout", "-1s", "--data", data},
		{"bench", "extra"},
	} {
		if code, _, stderr := run(context.Background(), args...); code != ExitUsage {
			t.Errorf("%q: exit %d, want %d (%s)", args, code, ExitUsage, stderr)
		}
	}
	if code, _, _ := run(context.Background(), "bench", "--data", filepath.Join(t.TempDir(), "missing.csv")); code != ExitData {
		t.Errorf("missing data file: exit %d, want %d", code, ExitData)
	}
	// A data file over the budget is refused as it is read, before any
	// run (it was read whole first).
	if code, _, stderr := run(context.Background(), "bench", "--data", data, "--max-memory", "200B"); code != ExitData || !strings.Contains(stderr, "over the memory budget of 200 B (--max-memory)") {
		t.Errorf("data over the budget: exit %d (%s), want %d", code, stderr, ExitData)
	}
	unlabeled := filepath.Join(t.TempDir(), "nolabel.csv")
	os.WriteFile(unlabeled, []byte("a,b\n1,2\n2,1\n"), 0o644)
	if code, _, stderr := run(context.Background(), "bench", "--data", unlabeled); code != ExitData || !strings.Contains(stderr, "nolabel.csv: no labels") {
		t.Errorf("unlabeled data file: exit %d (%s), want %d naming the file", code, stderr, ExitData)
	}
}

func TestBenchTableAndMarkdown(t *testing.T) {
	data := benchCSV(t)
	for _, f := range []string{"table", "markdown"} {
		code, out, stderr := run(context.Background(), "bench", "--methods", "benchvec", "--data", data, "--seeds", "1", "--format", f, "--in-process")
		if code != 0 {
			t.Fatalf("%s: exit %d %s", f, code, stderr)
		}
		if !strings.Contains(out, "ADBench protocol") || !strings.Contains(out, "grid") || !strings.Contains(out, "1.000") {
			t.Errorf("%s output:\n%s", f, out)
		}
	}
}

// benchResult is a hand-made result: one finished cell, one whose runs all
// failed, one partly timed out on class-labelled tensor data.
func benchResult() *bench.Result {
	nan := math.NaN()
	ok := bench.Outcome{AUC: 0.9, AP: 0.5, FitSeconds: 0.25, ScoreSeconds: 0.0125, PeakBytes: 50 << 20}
	return &bench.Result{
		Seeds:   []uint64{1, 2},
		Methods: []string{"a", "b"},
		Params:  map[string]map[string]string{"a": {"nu": "0.1"}},
		Timeout: 60,
		Cells: []bench.Cell{
			{Data: "set1", Method: "a", Protocol: "adbench", Input: "vector", AUC: 0.9, AP: 0.5, FitSeconds: 0.25,
				ScoreSeconds: 0.0125, PeakBytes: 50 << 20, OK: 2, Trials: []bench.Trial{{Outcome: ok}, {Outcome: ok}}},
			{Data: "set1", Method: "b", Protocol: "adbench", Input: "vector", AUC: nan, AP: nan, FitSeconds: nan,
				ScoreSeconds: nan, Failed: 2, Err: "b: out of memory",
				Trials: []bench.Trial{{Outcome: bench.Outcome{Err: "b: out of memory"}}, {Outcome: bench.Outcome{Err: "b: out of memory"}}}},
			{Data: "tens", Method: "a", Protocol: "class", Input: "flat", AUC: 0.75, AP: 0.25, FitSeconds: 1.5,
				ScoreSeconds: 0.5, PeakBytes: 100 << 20, OK: 1, TimedOut: 1, Err: "over the timeout of 1m0s (killed)",
				Trials: []bench.Trial{{Outcome: ok}, {Outcome: bench.Outcome{TimedOut: true, Err: "over the timeout of 1m0s (killed)"}}}},
		},
	}
}

func TestBenchFormatsGolden(t *testing.T) {
	for _, tc := range []struct {
		golden string
		write  func(*bytes.Buffer, *bench.Result) error
	}{
		{"bench_table.golden", func(b *bytes.Buffer, r *bench.Result) error { return writeBenchTable(b, r, "peak RSS") }},
		{"bench_csv.golden", func(b *bytes.Buffer, r *bench.Result) error { return writeBenchCSV(b, r) }},
		{"bench_markdown.golden", func(b *bytes.Buffer, r *bench.Result) error { return writeBenchMarkdown(b, r, "peak RSS") }},
	} {
		var b bytes.Buffer
		if err := tc.write(&b, benchResult()); err != nil {
			t.Fatal(err)
		}
		golden(t, tc.golden, b.String())
	}
	// JSON: NaN medians are null and read back as NaN.
	out, err := json.Marshal(benchResult())
	if err != nil {
		t.Fatal(err)
	}
	var back bench.Result
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if c := back.Cells[1]; !math.IsNaN(c.AUC) || c.Status() != "failed" || back.Cells[0].AUC != 0.9 {
		t.Errorf("JSON round trip: %+v", back.Cells[:2])
	}
}

// --report writes one self-contained HTML file: the tables, the statistics
// section and the curves inlined as images, no script, nothing fetched
// from elsewhere. A report path that is the data file is refused before
// any work (exit 1), leaving the data as it was.
func TestBenchReport(t *testing.T) {
	data := benchCSV(t)
	report := filepath.Join(t.TempDir(), "r.html")
	code, _, stderr := run(context.Background(), "bench", "--methods", "benchvec", "--data", data,
		"--seeds", "1,2", "--in-process", "--report", report)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{"<!doctype html>", "<meta name=\"viewport\"", "Median AUC-ROC", "<td>grid</td>", "Statistics",
		"No statistics: needs at least 2 methods", "data:image/svg+xml;base64,"} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "src=\"http", "href=\"http", "@import", "url(http"} {
		if strings.Contains(s, bad) {
			t.Errorf("report holds %q: not self-contained", bad)
		}
	}
	// A report not named .html is refused before any work: it wrote
	// HTML over whatever file it named (fifth sweep: a model).
	model := filepath.Join(t.TempDir(), "m.bin")
	os.WriteFile(model, []byte("model"), 0o644)
	code, _, stderr = run(context.Background(), "bench", "--methods", "benchvec", "--data", data, "--in-process", "--report", model)
	if b, _ := os.ReadFile(model); code != 1 || string(b) != "model" || !strings.Contains(stderr, "the report is an HTML file; name it .html") {
		t.Errorf("--report m.bin: exit %d (%s), file now %q; want exit 1, unchanged", code, stderr, b)
	}
	before, _ := os.ReadFile(data)
	code, _, stderr = run(context.Background(), "bench", "--methods", "benchvec", "--data", data, "--in-process", "--report", data)
	if after, _ := os.ReadFile(data); code != 1 || !bytes.Equal(before, after) {
		t.Errorf("--report onto the data: exit %d (%s), data changed %v; want exit 1, unchanged", code, stderr, !bytes.Equal(before, after))
	}
}

// One child serves the tasks in turn: a task killed at the timeout and a
// failing one cost nothing to the tasks after them (a new child takes
// over), and every good run reports its own peak RSS.
func TestBenchWorkerSequence(t *testing.T) {
	data := benchCSV(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	run, stop := workerRunner(exe)
	defer stop()
	task := func(p map[string]string) bench.Task {
		return bench.Task{Data: data, Method: "benchvec", Params: p, Seed: 1, Class: -1}
	}
	for i, tc := range []struct {
		params map[string]string
		want   string
	}{
		{nil, "ok"},
		{map[string]string{"block": "true"}, "timeout"},
		{nil, "ok"},
		{map[string]string{"fail": "true"}, "failed"},
		{nil, "ok"},
		{nil, "ok"},
	} {
		o := run(context.Background(), task(tc.params), 2*time.Second)
		got := "ok"
		switch {
		case o.TimedOut:
			got = "timeout"
		case o.Err != "":
			got = "failed"
		}
		if got != tc.want {
			t.Errorf("task %d: %s (%q), want %s", i, got, o.Err, tc.want)
		}
		if got == "ok" && (o.Memory != "rss" || o.PeakBytes <= 0 || o.AUC != 1) {
			t.Errorf("task %d: memory %q %d bytes, AUC %v", i, o.Memory, o.PeakBytes, o.AUC)
		}
	}
}

// TestRemoveStaleSplitDirs: the split directory of a bench run whose
// process is gone (killed before it could remove it) is removed by the
// next run; a live process's is kept.
func TestRemoveStaleSplitDirs(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("cannot run true:", err)
	}
	stale := filepath.Join(tmp, fmt.Sprintf("anomaly-bench-%d-123", dead.Process.Pid))
	live := filepath.Join(tmp, fmt.Sprintf("anomaly-bench-%d-456", os.Getppid()))
	for _, d := range []string{stale, live} {
		os.MkdirAll(d, 0o700)
		os.WriteFile(filepath.Join(d, "split-1.gob"), []byte("data"), 0o600)
	}
	removeStaleSplitDirs()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the dead run's directory is still there (%v)", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the live run's directory was removed: %v", err)
	}
}

// TestBenchResultsBeforePictures: a picture of --plot that cannot be
// written (here DIR/grid_roc.png is a directory; on a full disk it was
// "no space left on device") no longer loses the results: the table and
// the report are written first, the other pictures still, and the
// failure is reported after them with exit 3 (standard output was empty).
func TestBenchResultsBeforePictures(t *testing.T) {
	data := benchCSV(t)
	dir := t.TempDir()
	pdir := filepath.Join(dir, "plots")
	if err := os.MkdirAll(filepath.Join(pdir, "grid_roc.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "r.html")
	code, out, stderr := run(context.Background(), "bench", "--methods", "benchvec", "--data", data, "--seeds", "1", "--in-process",
		"--plot", pdir, "--report", report)
	if code != ExitInternal || !strings.Contains(stderr, "anomaly: --plot "+pdir+": 1 of 2 pictures not written; the first: "+filepath.Join(pdir, "grid_roc.png")) {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "grid  benchvec  vector  1.000") {
		t.Errorf("no results table on standard output:\n%s", out)
	}
	if _, err := os.Stat(report); err != nil {
		t.Errorf("no report: %v", err)
	}
	checkPNG(t, filepath.Join(pdir, "grid_pr.png"))
}

// TestBenchAllRunsFailed: a data set whose labels are all 0 fails every
// run at evaluation; bench printed every cell "0/1 failed" and exited 0.
// Now: the table, then exit 2 with the first failure. When some runs
// finish, exit 0 with the failures counted on stderr.
func TestBenchAllRunsFailed(t *testing.T) {
	var b strings.Builder
	b.WriteString("a,b,label\n")
	for i := range 40 {
		fmt.Fprintf(&b, "%d,%d,0\n", i%7, i%5)
	}
	allnorm := write(t, filepath.Join(t.TempDir(), "allnorm.csv"), b.String())
	code, out, stderr := run(context.Background(), "bench", "--methods", "benchvec", "--data", allnorm, "--seeds", "1,2", "--in-process")
	if code != ExitData || !strings.Contains(stderr, "anomaly: every run failed (2 of 2); the first, allnorm/benchvec: eval: labels hold only one class") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "0/2 failed") {
		t.Errorf("no table:\n%s", out)
	}
	code, _, stderr = run(context.Background(), "bench", "--methods", "benchvec", "--data", benchCSV(t)+","+allnorm, "--seeds", "1", "--in-process")
	if code != ExitOK || !strings.Contains(stderr, "bench: 2 cells, 2 runs in") || !strings.Contains(stderr, "; 1 failed (see the table)") {
		t.Errorf("one of two failed: exit %d: %s", code, stderr)
	}
}

// TestBenchMarkdownPipe: a | in a data file's name is escaped in the
// Markdown tables (a|b.csv split its rows into one cell more).
func TestBenchMarkdownPipe(t *testing.T) {
	data := filepath.Join(t.TempDir(), "a|b.csv")
	if err := os.Rename(benchCSV(t), data); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(context.Background(), "bench", "--methods", "benchvec", "--data", data, "--seeds", "1", "--in-process", "--format", "markdown", "--stats")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"| a\\|b | 1.000 |", "| a\\|b | benchvec | vector |"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}
