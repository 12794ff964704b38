package cli

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kernelad/anomaly/internal/testmat"
)

// checkPNG fails unless path holds a decodable PNG.
func checkPNG(t *testing.T, path string) {
	t.Helper()
	if _, err := png.Decode(testmat.ReadFile(t, path)); err != nil {
		t.Errorf("%s: %v", path, err)
	}
}

func TestPlotCommands(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	data := benchCSV(t)
	for _, tc := range []struct {
		args []string
		out  string
	}{
		{[]string{"plot", "roc", "--data", data, "--methods", "benchvec"}, "roc.png"},
		{[]string{"plot", "pr", "--data", data, "--methods", "benchvec"}, "pr.png"},
		{[]string{"plot", "map", "--method", "meandist", "--n", "100", "--steps", "20"}, "map.png"},
		{[]string{"plot", "cpals", "--shape", "8x7x6", "--rank", "2", "--iterations", "5"}, "cpals.png"},
	} {
		out := filepath.Join(dir, tc.out)
		if code, _, stderr := run(ctx, append(tc.args, "--out", out)...); code != 0 {
			t.Fatalf("%q: exit %d: %s", tc.args, code, stderr)
		}
		checkPNG(t, out)
	}
	// bench --plot: ROC and PR per data set.
	pdir := filepath.Join(dir, "bench")
	if code, _, stderr := run(ctx, "bench", "--methods", "benchvec", "--data", data, "--seeds", "1", "--in-process", "--plot", pdir); code != 0 {
		t.Fatalf("bench --plot: exit %d: %s", code, stderr)
	}
	checkPNG(t, filepath.Join(pdir, "grid_roc.png"))
	checkPNG(t, filepath.Join(pdir, "grid_pr.png"))
	// A picture that is a link to the data file is refused, and the data
	// left as it was (bench wrote through it: the CSV became a PNG).
	ldir := filepath.Join(dir, "linked")
	os.MkdirAll(ldir, 0o755)
	os.Symlink(data, filepath.Join(ldir, "grid_roc.png"))
	before, _ := os.ReadFile(data)
	if code, _, stderr := run(ctx, "bench", "--methods", "benchvec", "--data", data, "--seeds", "1", "--in-process", "--plot", ldir); code != ExitUsage || !strings.Contains(stderr, "same file as the input") {
		t.Errorf("bench --plot onto the data: exit %d: %s", code, stderr)
	}
	if after, _ := os.ReadFile(data); !bytes.Equal(after, before) {
		t.Error("bench --plot replaced the data file")
	}
	// sgd needs expose, which this test program lacks.
	for _, args := range [][]string{
		{"plot"},
		{"plot", "nosuch"},
		{"plot", "cpals"},
		{"plot", "cpals", "--shape", "4x0", "--out", filepath.Join(dir, "x.png")},
		{"plot", "cpals", "--rank", "9", "--shape", "4x4x4", "--out", filepath.Join(dir, "x.png")},
		{"plot", "sgd", "--out", filepath.Join(dir, "sgd.png")},
		{"plot", "roc"},
		{"plot", "roc", "--data", data, "--methods", "benchvec", "--out", filepath.Join(dir, "x.pgn")},
		{"plot", "map", "--method", "meandist", "--out", ""},
		{"plot", "roc", "--data", data, "--methods", "", "--out", filepath.Join(dir, "x.png")},
		{"plot", "roc", "--data", data, "--methods", "benchvec,benchvec", "--out", filepath.Join(dir, "x.png")},
		{"plot", "sgd", "--out", filepath.Join(dir, "sgd.svg")},
		{"plot", "roc", "--data", data, "--methods", "benchvec", "--seed", "4294967296", "--out", filepath.Join(dir, "x.png")},
		{"plot", "map", "--method", "nosuch", "--out", filepath.Join(dir, "x.png")},
		{"plot", "map", "--n", "3", "--out", filepath.Join(dir, "x.png")},
		// Past the memory budget, refused before anything is allocated
		// (they ran out of memory with a Go runtime trace).
		{"plot", "map", "--method", "meandist", "--n", "300000000000", "--out", filepath.Join(dir, "x.png")},
		{"plot", "cpals", "--shape", "20000x20000x2000", "--out", filepath.Join(dir, "x.png")},
	} {
		if code, _, stderr := run(ctx, args...); code != ExitUsage {
			t.Errorf("%q: exit %d, want %d (%s)", args, code, ExitUsage, stderr)
		}
	}
}

// TestPlotCPALSChecksFirst: plot cpals checks the rank against the shape
// and the memory its tensors take before it allocates them. --rank 10⁹
// on 40x40x40 ran out of memory with a runtime trace (PlantedCP made the
// factors before cpd's rank check); here --rank 3,000,000 on 3x3x3, whose
// factors and Khatri–Rao product take about 500 MB, must be refused
// having allocated almost nothing.
func TestPlotCPALSChecksFirst(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "c.png")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code, _, stderr := run(context.Background(), "plot", "cpals", "--shape", "3x3x3", "--rank", "3000000", "--out", out)
	runtime.ReadMemStats(&after)
	if code != ExitUsage || !strings.Contains(stderr, "rank 3000000 exceeds the smallest side 3 of shape 3x3x3") || !strings.Contains(stderr, "lower the rank to at most 3") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 10<<20 {
		t.Errorf("allocated %d MB before refusing the rank", got>>20)
	}
	// 20 modes of side 2 at rank 2 (8.4 MB a tensor): cpd's workspace
	// and SVD initialisation hold 9 copies of the tensor with it (75.5
	// MB with the rest, bench.CPALSPlotBytes; 92.3 MB with the process),
	// where the old estimate was four copies, 33.6 MB: a budget of 60 MB
	// passed it.
	shape := strings.TrimSuffix(strings.Repeat("2x", 20), "x")
	code, _, stderr = run(context.Background(), "plot", "cpals", "--shape", shape, "--rank", "2", "--max-memory", "60MB", "--out", out)
	if code != ExitUsage || !strings.Contains(stderr, "over the memory budget of 60 MB (--max-memory): lower --shape or --rank, or raise --max-memory") {
		t.Errorf("2^20 under 60 MB: exit %d: %s", code, stderr)
	}
	// The map names its own flags.
	code, _, stderr = run(context.Background(), "plot", "map", "--method", "meandist", "--n", "100000", "--max-memory", "1MB", "--out", out)
	if code != ExitUsage || !strings.Contains(stderr, "lower --n or --steps") {
		t.Errorf("map under 1 MB: exit %d: %s", code, stderr)
	}
	assertFiles(t, dir)
}

// TestInterruptPlot sends SIGINT to plot map while it scores the grid
// with a method whose Score never returns: the command exits 130 with
// one line and writes no picture (it was killed by the signal, silently).
func TestInterruptPlot(t *testing.T) {
	dir := t.TempDir()
	started := filepath.Join(t.TempDir(), "scoring")
	out := filepath.Join(dir, "map.png")
	stderr := interruptChild(t, []string{"ANOMALY_TEST_SCORING=" + started}, func() bool {
		_, err := os.Stat(started)
		return err == nil
	}, "plot", "map", "--method", "meandist", "--set", "block_score=true", "--n", "50", "--steps", "5", "--out", out)
	if want := "anomaly: plot interrupted; no picture written to " + out + "\n"; stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
	assertFiles(t, dir)
}

// TestPlotUnknownPicture: a wrong or missing picture name is the error even
// with the picture's flags after it; "plot bogus --out p.png" said
// "unknown flag: --out".
func TestPlotUnknownPicture(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plot", "bogus", "--out", "p.png"}, `plot: unknown picture "bogus" (want roc, pr, map, sgd or cpals)`},
		{[]string{"plot", "rocc", "--data", "x.csv", "--methods", "kde", "--out", "p.png"}, `plot: unknown picture "rocc"`},
		{[]string{"plot", "--out", "p.png"}, "plot: name a picture: roc, pr, map, sgd or cpals"},
	} {
		code, _, stderr := run(context.Background(), tc.args...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, ExitUsage, tc.want)
		}
	}
}
